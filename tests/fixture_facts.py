"""Facts about the fixture repository (tests/fixtures/sample_repo) that several tests assert.

Change them here, once, when the fixture or a parser changes on purpose.
"""

SAMPLE_NODES = 49  # nodes a zero-config build of the fixture makes
SAMPLE_FILES = 13  # files it indexes
