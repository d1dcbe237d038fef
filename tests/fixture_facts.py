"""Facts about the fixture repository (tests/fixtures/sample_repo) that several tests assert.

Change them here, once, when the fixture or a parser changes on purpose.
"""

SAMPLE_NODES = 49  # nodes a zero-config build of the fixture makes
SAMPLE_FILES = 13  # files it indexes

# a configuration of the fixture that sets every per-node factor: priorities by folder and
# two workflows (the tests that compare two scorers on it build the fixture with it)
FIXTURE_CONFIG = """\
[priorities]
"geokit/agents" = 3
"docs" = 2
"examples" = 0
[workflows.static_shift]
keywords = ["static shift", "galvanic"]
[workflows.strike]
keywords = ["strike", "phase tensor"]
"""

# questions about the fixture, of every form the scorer treats apart (plain words, a
# workflow's keywords, a CamelCase name, a name in backticks, a snake_case name alone);
# the tests that compare two scorers ask them and their own
SAMPLE_QUERIES = [
    "how do I correct static shift",
    "static shift correction of the survey",
    "phase tensor skew",
    "strike from the phase tensor",
    "remove the galvanic static shift",
    "write a script that loads a survey",
    "static shift StaticShiftAgent",
    "what does `load_survey` return",
    "estimate_ss_ama",
    "draw a rose diagram",
    "describe the agent from config",
]
