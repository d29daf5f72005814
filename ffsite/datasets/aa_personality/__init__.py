"""ffsite's AA-style personality panel: models answer ffsite's own trait-eliciting
questions for AA-PersonalityBench's 30 traits; per trait, a panel of three LLM judges
compares two models' answers at a time (A, B or tie); Bradley-Terry ratings with Firth's
penalty and the eight indices follow (methods.md §2).  The method is
AA-PersonalityBench's; the questions, the judge prompt and the panel are ffsite's, and no
number here is AA-PersonalityBench's."""

from ffsite.datasets.record import Dataset, Source

# The panel's judges on OpenRouter (ffsite's choice: AA-PersonalityBench's own panel
# models are not ones we can call).
JUDGES = ("google/gemini-2.5-flash", "openai/gpt-4.1-mini", "anthropic/claude-3.5-haiku")

DATASET = Dataset(
    id="aa_personality",
    name="AA-style panel",
    package=__name__,
    source=Source("ffsite's AA-style panel, after AA-PersonalityBench's method (Artificial "
                  "Analysis); questions and judge prompt ffsite's own",
                  "https://artificialanalysis.ai", "Apache-2.0 (ffsite's own questions)"),
    commit=None,  # nothing to download: the questions are in the repository
    kind="votes",
    measures=("30 traits of writing and conversation, from a panel of three LLM judges "
              "comparing two models' answers to ffsite's trait-eliciting questions, one "
              "trait per call (A, B or tie), rated by Bradley-Terry with Firth's penalty "
              "on the Elo scale, anchor at 1000"),
    judges=JUDGES,
    panel="AA-style panel: " + " + ".join(j.rsplit("/", 1)[-1] for j in JUDGES),
    protocol="protocol:protocol",
)
