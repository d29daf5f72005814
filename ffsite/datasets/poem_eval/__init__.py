"""poem-eval (the Self-Conception Poem Probe): 23 models each wrote five cryptic poems about
their self; one judge, GPT-5.2, placed every poem on six bipolar 1-5 scales with a brief
rationale (HeavyHelium/poem-eval)."""

from ffsite.datasets.record import Dataset, Source

DATASET = Dataset(
    id="poem_eval",
    name="poem-eval",
    package=__name__,
    trait_sets=(("poem-eval-6", "poem-eval's six self-image scales"),),
    source=Source("poem-eval by Diana Markova", "https://github.com/HeavyHelium/poem-eval",
                  "MIT"),
    commit="dd7994118147f863ed5b321a12583e7441c9b4de",
    kind="scores",
    measures=("how a model pictures its own self: five cryptic poems per model about "
              "\"your self\", placed by one judge on six bipolar 1-5 scales (momentary or "
              "enduring, context or weights, single or many, tool or agent, certain or "
              "unsure, human or alien)"),
    judges=("openai/gpt-5.2",),
    rubric=(1, 5),
    unit="meta.run",
    unit_label="poem",
    texts="reader:load_texts",
    command="command:import_command",
    defaults="defaults:write_defaults",
    files="files.toml",
)
