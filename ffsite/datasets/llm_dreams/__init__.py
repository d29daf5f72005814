"""llm-dreams-benchmark: 236 models each continued 15 dream openings twice; nine LLM judges,
eight of them rated models themselves, each estimated the "dreamer's" personality on 15
traits, twice per answer set (fit-alessandro-berti/llm-dreams-benchmark)."""

from ffsite.datasets.record import Dataset, Source

DATASET = Dataset(
    id="llm_dreams",
    name="llm-dreams",
    package=__name__,
    trait_sets=(("llm-dreams-15", "llm-dreams' fifteen traits of the dreamer"),),
    source=Source("llm-dreams-benchmark by Alessandro Berti",
                  "https://github.com/fit-alessandro-berti/llm-dreams-benchmark", "Apache-2.0"),
    commit="f0995cef89d72d4b5b929abdc82064fe19df8904",
    kind="scores",
    measures=("a projective test: each model continued 15 dream openings, and LLM judges "
              "estimated the personality of the \"dreamer\" from the dreams on 15 traits, "
              "1-10; it describes how a model writes a dream, not how it behaves towards a "
              "user"),
    judges=("gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.5", "grok-4.3", "grok-4.5", "grok-4.6",
            "gemini-3.7-flash", "qwen/qwen3.6-plus", "mistral-small-2603"),
    panel="llm-dreams panel",
    unit="meta.answer_set",
    unit_label="answer set",
    # Eight of the nine judges are rated models (the README of ../shared/data names them);
    # gemini-3.7-flash is not among the rated models.
    judge_models=(("gpt-5.6-sol", "openaigpt-5.6-sol"), ("gpt-5.6-terra", "openaigpt-5.6-terra"),
                  ("gpt-5.5", "gpt-5.5-2026-04-23"), ("grok-4.3", "Grok-4.3-20260530"),
                  ("grok-4.5", "x-aigrok-4.5"), ("grok-4.6", "x-aigrok-4.6"),
                  ("qwen/qwen3.6-plus", "qwenqwen3.6-plusfree"),
                  ("mistral-small-2603", "mistral-small-2603")),
    rubric=(1, 10),
    rubric_anchored=False,  # PROTOCOL.md: the trait names and 1.0-10.0, no more
    texts="reader:load_texts",
    command="command:import_command",
    defaults="defaults:write_defaults",
    files="files.toml",
    protocol="protocol:protocol",
    model_section="page:model_section",
    answer_marks="page:answer_marks",
    peer_judgments="peers:peer_judgments",
)
