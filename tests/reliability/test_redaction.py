"""Credentials in indexed files never reach the index, the answers or a model.

Credential forms are planted in a copy of the fixture repository (a Python
module, Markdown and reST pages, a TOML file, a notebook), the repository is
built, and every file under the index folder is read as bytes: no planted
value, nor a distinctive piece of one, may occur. ``redact_secrets = false``
keeps them (so the check is real). Every secret here is synthetic and made at
run time from pieces, so that no source file holds a literal a scanner flags.
"""

from __future__ import annotations

import ast
import json
import random
import string
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reliability_support import FakeEmbedding, _fake_vector, cli_inproc

import codecite
from codecite.config import load_config
from codecite.indexer.redaction import RedactionSummary, redact_secrets
from codecite.indexer.secret_rules import looks_random, secret_name
from codecite.indexer.walk import walk_corpus

REPO = Path(__file__).resolve().parents[2]
_RNG = random.Random(11)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    while True:  # letters and digits, as a generated credential has
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


B64 = string.ascii_letters + string.digits + "+/"
SECRETS = {
    "aws_id": "AKIA" + _rand(16, string.ascii_uppercase + string.digits),
    "aws_secret": _rand(20) + "/" + _rand(19, B64),
    "github": "gh" + "p_" + _rand(36),
    "password": "Pw-" + _rand(13) + "!" + _rand(3),
    "slack": "xo" + "xb-" + str(_RNG.randrange(10**11, 10**12)) + "-" + _rand(24),
    "stripe": "sk" + "_live_" + _rand(24),
    "url_password": _rand(14),
    "key_line_1": "MII" + _rand(61, B64),
    "key_line_2": _rand(64, B64),
    "gitlab": "gl" + "pat-" + _rand(20),
    "google": "AI" + "za" + _rand(35),
    "bearer": _rand(32),
    "toml_api_key": _rand(32, "0123456789abcdef"),
    "client_secret": _rand(40, B64),
    "hf": "h" + "f_" + _rand(34),
    "openai": "sk" + "-proj-" + _rand(48),
    "jwt": "ey" + "J" + _rand(20) + ".ey" + "J" + _rand(30) + "." + _rand(43),
}

SETTINGS_PY = f'''"""Deployment settings of the survey uploader.

The CI job pushes with {SECRETS["github"]}.
"""

import re

AWS_ACCESS_KEY_ID = "{SECRETS["aws_id"]}"
AWS_SECRET_ACCESS_KEY = "{SECRETS["aws_secret"]}"
DB_PASSWORD: str = "{SECRETS["password"]}"
password = None
TOKEN_RE = re.compile(r"[A-Za-z0-9]{{16,}}")
max_tokens = 4096


def upload_bucket():
    """The bucket that survey lines are uploaded to."""
    token = get_token()
    return "geokit-surveys", token
'''

DEPLOY_MD = f"""# Deploying the uploader

Put the credentials in `.env`:

```
SLACK_BOT_TOKEN={SECRETS["slack"]}
STRIPE_KEY={SECRETS["stripe"]}
DATABASE_URL=postgres://survey:{SECRETS["url_password"]}@db.internal:5432/geokit
```

The service's signing key:

```
-----BEGIN RSA PRIVATE KEY-----
{SECRETS["key_line_1"]}
{SECRETS["key_line_2"]}
-----END RSA PRIVATE KEY-----
```

## After the key

Keep the secret key out of the repository; call `upload_bucket` for the bucket.
"""

TOKENS_RST = f"""Mirroring
=========

The mirror job authenticates with ``{SECRETS["gitlab"]}``.

.. code-block:: yaml

    maps_api_key: {SECRETS["google"]}
    headers:
      Authorization: Bearer {SECRETS["bearer"]}
"""

SETTINGS_TOML = f"""[uploader]
api_key = "{SECRETS["toml_api_key"]}"
client_secret = "{SECRETS["client_secret"]}"
region = "eu-west-1"
"""


def _notebook() -> str:
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# A tour of the uploader\n", "\n", f"A session token: {SECRETS['jwt']}\n"],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": [
                f'HF_TOKEN = "{SECRETS["hf"]}"\n',
                f'client = OpenAI(api_key="{SECRETS["openai"]}")\n',
            ],
        },
    ]
    return json.dumps(
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1
    )


PLANTED = {
    "geokit/settings.py": SETTINGS_PY,
    "docs/deploy.md": DEPLOY_MD,
    "docs/guide/tokens.rst": TOKENS_RST,
    "docs/settings.toml": SETTINGS_TOML,
    "docs/tour.ipynb": _notebook(),
}
EXPECTED = {
    "geokit/settings.py": 4,
    "docs/deploy.md": 4,
    "docs/guide/tokens.rst": 3,
    "docs/settings.toml": 2,
    "docs/tour.ipynb": 3,
}
SUFFIXES = 'suffixes = [".py", ".rst", ".md", ".ipynb", ".toml"]\n'


def _needles() -> list[str]:
    """Every planted value and a distinctive middle piece of each."""
    out = []
    for value in SECRETS.values():
        mid = len(value) // 2
        out += [value, value[mid - 6 : mid + 6]]
    return out


def _plant(root: Path, redact: bool = True) -> Path:
    for rel, text in PLANTED.items():
        (root / rel).write_text(text, encoding="utf-8")
    (root / "codecite.toml").write_text(SUFFIXES + ("" if redact else "redact_secrets = false\n"))
    return root


def _leaks(folder: Path) -> dict[str, list[str]]:
    """Index file -> the planted values (or pieces) its bytes hold."""
    hits: dict[str, list[str]] = {}
    needles = [(n, n.encode()) for n in _needles()]
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found = [n for n, raw in needles if raw in data]
            if found:
                hits[str(path.relative_to(folder))] = found
    return hits


class RecordingEmbedding(FakeEmbedding):
    """The fake embedding, keeping every text it was asked to embed."""

    seen: ClassVar[list[str]] = []

    def _get_text_embedding(self, text: str) -> list[float]:
        RecordingEmbedding.seen.append(text)
        return _fake_vector(text)


@pytest.fixture
def planted(sample_repo: Path) -> Path:
    return _plant(sample_repo)


def test_planted_secrets_are_in_no_index_file(planted: Path) -> None:
    RecordingEmbedding.seen = []
    codecite.build(planted, embed=RecordingEmbedding(model_name="fake"))
    index_dir = planted / ".codecite"
    assert set(PLANTED) <= {rec["metadata"]["source_path"] for rec in _records(index_dir)}
    assert _leaks(index_dir) == {}
    nodes = (index_dir / "nodes.jsonl").read_text(encoding="utf-8")
    assert nodes.count("[REDACTED:") >= sum(EXPECTED.values())
    assert RecordingEmbedding.seen, "the build embedded nothing"
    assert not [n for n in _needles() if any(n in text for text in RecordingEmbedding.seen)]
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["redaction"] == {
        "enabled": True,
        "values": sum(EXPECTED.values()),
        "files": EXPECTED,
    }
    assert all(manifest["files"][rel]["redacted"] == n for rel, n in EXPECTED.items())


def _records(index_dir: Path) -> list[dict[str, Any]]:
    with (index_dir / "nodes.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_answers_show_the_placeholder_not_the_key(planted: Path) -> None:
    code, out, err = cli_inproc("build", str(planted))
    assert code == 0, err
    shown = [out, err]
    for question in (
        "what is the AWS secret access key",
        "DB_PASSWORD",
        "what token does the mirror job use",
        "slack bot token stripe key",
    ):
        code, out, err = cli_inproc("ask", question, "-C", str(planted))
        assert code == 0, err
        shown += [out, err]
    assert "AWS_SECRET_ACCESS_KEY" in shown[2] and "[REDACTED:" in shown[2]
    assert not [n for n in _needles() if any(n in text for text in shown)]


def test_build_report_and_stats_count_redacted_files(planted: Path) -> None:
    code, out, _ = cli_inproc("build", str(planted))
    assert code == 0
    total = sum(EXPECTED.values())
    line = next(x for x in out.splitlines() if x.strip().startswith("redacted"))
    assert line.strip().startswith(f"redacted {total} secret(s) in: ")
    assert set(line.split(": ", 1)[1].split(", ")) == set(EXPECTED)
    code, out, _ = cli_inproc("stats", "-C", str(planted))
    assert code == 0 and f"secrets redacted: {total} in {len(EXPECTED)} file(s)" in out
    assert all(f"{rel}: {n}" in out for rel, n in EXPECTED.items())
    code, out, _ = cli_inproc("stats", "--json", "-C", str(planted))
    assert json.loads(out)["redaction"] == {"enabled": True, "values": total, "files": EXPECTED}
    code, out, _ = cli_inproc("build", str(planted), "--json")
    assert json.loads(out)["redaction"]["values"] == total


def test_reused_files_keep_their_count(planted: Path) -> None:
    codecite.build(planted)
    readme = planted / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    report = codecite.build(planted)
    assert report.reparsed == 1
    summary = RedactionSummary.of_index(planted / ".codecite")
    assert summary.files == EXPECTED and summary.enabled
    assert _leaks(planted / ".codecite") == {}


def test_redaction_off_keeps_the_values(sample_repo: Path) -> None:
    """The check above is real: without redaction the same values are in the index."""
    root = _plant(sample_repo, redact=False)
    codecite.build(root)
    leaks = _leaks(root / ".codecite")
    assert set(SECRETS.values()) <= {n for found in leaks.values() for n in found}
    assert RedactionSummary.of_index(root / ".codecite") == RedactionSummary(False, {})
    _, out, _ = cli_inproc("stats", "-C", str(root))
    assert "secrets redacted: off (redact_secrets = false)" in out


def test_toggling_the_setting_rebuilds(planted: Path) -> None:
    on = load_config(planted)
    assert on.redact_secrets is True
    off = load_config(planted, redact_secrets=False)
    assert on.digest() != off.digest()  # the manifest's settings digest: a full re-parse
    codecite.build(planted)
    (planted / "codecite.toml").write_text(SUFFIXES + "redact_secrets = false\n")
    assert codecite.build(planted).reparsed == len(walk_corpus(off).files)


def test_citations_keep_their_lines(sample_repo: Path, tmp_path: Path) -> None:
    """Redaction never adds or removes a line: every node cites the same lines."""
    on = _plant(sample_repo)
    off = _plant(_copy(sample_repo, tmp_path / "off"), redact=False)
    codecite.build(on)
    codecite.build(off)

    def spans(root: Path) -> list[tuple[str, Any, Any, Any]]:
        return sorted(
            (
                r["metadata"]["source_path"],
                r["metadata"].get("symbol"),
                r["metadata"].get("start_line"),
                r["metadata"].get("end_line"),
            )
            for r in _records(root / ".codecite")
        )

    assert spans(on) == spans(off)
    after = [
        r["metadata"]
        for r in _records(on / ".codecite")
        if r["metadata"].get("heading") == "After the key"
    ]
    assert [(m["start_line"], m["end_line"]) for m in after] == [
        (DEPLOY_MD.splitlines().index("## After the key") + 1, len(DEPLOY_MD.splitlines()))
    ]
    bucket = [
        r["metadata"]
        for r in _records(on / ".codecite")
        if r["metadata"].get("symbol") == "geokit.settings.upload_bucket"
    ]
    assert (
        bucket
        and bucket[0]["start_line"] == SETTINGS_PY.splitlines().index("def upload_bucket():") + 1
    )


def _copy(src: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".codecite*"))
    return dest


# -- no false positives --------------------------------------------------------------------


def test_the_fixture_repository_redacts_nothing(built_sample: Path) -> None:
    summary = RedactionSummary.of_index(built_sample / ".codecite")
    assert summary == RedactionSummary(True, {})


def test_codecites_own_sources_redact_nothing() -> None:
    """What `codecite build` of this repository reads holds no credential."""
    cfg = load_config(REPO)
    found = {}
    for file in walk_corpus(cfg).files:
        result = redact_secrets(file.content().decode("utf-8", errors="replace"), file.rel)
        if result.count:
            found[file.rel] = result.rules
    assert found == {}


ORDINARY = [
    "password = None",
    "token = get_token()",
    "password: str",
    'TOKEN_RE = re.compile(r"gh[pousr]_[A-Za-z0-9]{36,}")',
    "max_tokens = 4096",
    'tokenizer_name = "bert-base-uncased-v2"',
    'token_url = "https://example.com/oauth2/v1/token"',
    'secret_file = "/etc/geokit/secret.key"',
    'API_KEY_ENV = "GEOKIT_API_KEY"',
    'api_key = os.environ["GEOKIT_API_KEY"]',
    'password = getpass("Password for the survey database: ")',
    'pad_token = "[PAD]"',
    'OPENAI_API_KEY="sk-..."',
    'api_key = "<your-api-key>"',
    "export GITHUB_TOKEN=${GITHUB_TOKEN}",
    "The secret key: keep it out of version control.",
    "Never commit a password, a token or an API key.",
    'publicKeyToken="1fc8b3b9a1e18e3b"',
    "url = 'postgresql://scott:tiger@localhost/test'",
    "secret_key = settings.SECRET_KEY_NAME",
    'def login(user: str, password: str = "") -> Token:',
    'access_token_kind = "bearer_v2"',
]


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_code_and_prose_stay(line: str) -> None:
    for rel in ("mod.py", "page.md", "settings.toml"):
        assert redact_secrets(line + "\n", rel).text == line + "\n", rel


@pytest.mark.parametrize(
    ("rel", "text", "rule"),
    [
        ("a.py", f'key = "{SECRETS["aws_id"]}"', "aws-access-key-id"),
        ("a.md", f"push with {SECRETS['github']} please", "github-token"),
        ("a.md", f"token: {SECRETS['gitlab']}", "gitlab-token"),
        ("a.env", f"SLACK={SECRETS['slack']}", "slack-token"),
        ("a.py", f'maps = "{SECRETS["google"]}"', "google-api-key"),
        ("a.toml", f'stripe = "{SECRETS["stripe"]}"', "stripe-key"),
        ("a.py", f'client = OpenAI(api_key="{SECRETS["openai"]}")', "openai-anthropic-key"),
        ("a.md", f"HF_TOKEN={SECRETS['hf']}", "huggingface-token"),
        ("a.md", f"session {SECRETS['jwt']}", "json-web-token"),
        ("a.ini", f"aws_secret_access_key = {SECRETS['aws_secret']}", "assigned-secret"),
        ("a.yaml", f"client-secret: '{SECRETS['client_secret']}'", "assigned-secret"),
        ("a.json", f'{{"apiKey": "{SECRETS["toml_api_key"]}"}}', "assigned-secret"),
        (
            "a.py",
            f'os.environ.setdefault("DB_PASSWORD", "{SECRETS["password"]}")',
            "assigned-secret",
        ),
        ("a.md", f"curl -H 'Authorization: Bearer {SECRETS['bearer']}'", "bearer-token"),
        ("a.md", f"postgres://survey:{SECRETS['url_password']}@db:5432/x", "url-password"),
    ],
)
def test_each_rule_redacts_its_form(rel: str, text: str, rule: str) -> None:
    result = redact_secrets(text, rel)
    assert result.rules == {rule: 1}
    assert f"[REDACTED:{rule}]" in result.text
    assert not [n for n in _needles() if n in result.text]


def test_redacted_sources_still_parse() -> None:
    """Only the value between the quotes changes: Python and notebook JSON stay valid."""
    ast.parse(redact_secrets(SETTINGS_PY, "geokit/settings.py").text)
    notebook = json.loads(redact_secrets(_notebook(), "docs/tour.ipynb").text)
    assert "[REDACTED:huggingface-token]" in "".join(notebook["cells"][1]["source"])
    inline = (
        'KEY = "-----BEGIN PRIVATE KEY-----\\n'
        + SECRETS["key_line_1"]
        + '\\n-----END PRIVATE KEY-----\\n"\n'
    )
    out = redact_secrets(inline, "k.py")
    assert out.rules == {"private-key": 1} and SECRETS["key_line_1"] not in out.text
    ast.parse(out.text)


def test_a_private_key_block_is_one_finding_on_each_of_its_lines() -> None:
    result = redact_secrets(DEPLOY_MD, "docs/deploy.md")
    lines = result.text.splitlines()
    begin = lines.index("-----BEGIN RSA PRIVATE KEY-----")
    assert lines[begin + 1 : begin + 4] == ["[REDACTED:private-key]"] * 2 + [
        "-----END RSA PRIVATE KEY-----"
    ]
    assert result.rules["private-key"] == 1


def test_names_and_values() -> None:
    assert [
        secret_name(n)
        for n in (
            "AWS_SECRET_ACCESS_KEY",
            "clientSecret",
            "db.password",
            "X-Api-Key",
            "GITHUB_TOKEN",
            "tokenizer",
            "token_url",
            "public_key_token",
            "keys",
            "monkey",
        )
    ] == ["secret", "secret", "password", "secret", "secret", None, None, None, None, None]
    assert looks_random(SECRETS["aws_secret"]) and looks_random(SECRETS["toml_api_key"])
    assert not any(
        looks_random(v)
        for v in (
            "aaaaaaaaaaaaaaaa1",
            "deadbeefdeadbeef",
            "hunter2hunter2hunter2",
            "GEOKIT_API_KEY_2",
            "geokit.settings.secret_key2",
            "${API_TOKEN_2}",
        )
    )


@given(st.text(alphabet=st.sampled_from([*string.printable, "é", "\u2028"]), max_size=400))
def test_any_text_keeps_its_lines(text: str) -> None:
    """Random text: no error, the same line breaks, and a changed line holds a placeholder."""
    samples = [text, f"password = '{text}'", f"token: {text}", f"-----BEGIN PRIVATE KEY-----{text}"]
    for sample in samples:
        out = redact_secrets(sample, "x.md").text
        assert out.count("\n") == sample.count("\n")
        for old, new in zip(sample.split("\n"), out.split("\n"), strict=True):
            assert old == new or "[REDACTED:" in new


def test_long_adversarial_lines_are_handled() -> None:
    """Inputs that make backtracking regexes quadratic (bounded repeats keep these linear)."""
    for text in (
        "token" * 20_000,
        "a" * 100_000 + "=",
        "-----BEGIN PRIVATE KEY-----" * 2000,
        "//a:" * 20_000,
        "password=" + "x" * 50_000,
        "\n".join(["MIIE" * 16] * 5000),
    ):
        result = redact_secrets(text, "x.md")
        assert result.text.count("\n") == text.count("\n")
