"""AlpacaEval 2.0: 805 instructions answered by many models, and the AlpacaEval 2.0 judge's
preferences against its reference model (tatsu-lab/alpaca_eval)."""

from ffsite.datasets.record import Dataset, Source

DATASET = Dataset(
    id="alpaca_eval",
    name="AlpacaEval",
    package=__name__,
    source=Source("AlpacaEval", "https://github.com/tatsu-lab/alpaca_eval",
                  "code Apache-2.0, data CC BY-NC 4.0"),
    commit=None,  # files from the moving default branch
    kind="votes",
    measures=("805 instructions answered by many models: text statistics of the answers "
              "(rules-judge trait votes), and the AlpacaEval 2.0 judge's (GPT-4 Turbo, "
              "weighted) preferences against gpt4_1106_preview"),
    judges=("weighted_alpaca_eval_gpt4_turbo",),
    reference_model="gpt4_1106_preview",
    # Its judge is GPT-4 Turbo, which AlpacaEval 2.0 runs as the same gpt-4-1106-preview
    # it takes as its reference ("uses GPT4-turbo as baseline and annotator"): every
    # preference sets the judge's own answer against another model's.
    judge_models=(("weighted_alpaca_eval_gpt4_turbo", "gpt4_1106_preview"),),
    texts="reader:load_texts",
    prompt_set="reader:prompt_set",
    answers="reader:read_output_files",
    command="command:import_command",
    order_unknown=True,
    defaults="defaults:write_defaults",
    files="files.toml",
    protocol="protocol:protocol",
)
