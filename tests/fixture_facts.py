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
