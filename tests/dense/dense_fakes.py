"""Dense test helpers: a fake OpenAI-compatible embeddings server on 127.0.0.1,
and a matching in-process embedding model.

Vectors are a hashed bag of words (deterministic, no network beyond loopback):
texts sharing words have a positive cosine, texts sharing none have cosine 0.
The server counts requests and inputs, can be told to fail the next requests
with given HTTP statuses, and knows two models of different dimensions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

API_KEY = "sk-test-not-real"
MODELS = {"fake-embed-a": 64, "fake-embed-b": 48}
_WORD = re.compile(r"[a-z0-9]+")


LOCAL_DIM = 32  # the fake local backend's vectors (the fake_local fixture)


@dataclass
class FakeLocal:
    """The local backend, faked (the ``fake_local`` fixture): ``available`` is the extra
    being installed; ``embedded`` every text it was asked to embed."""

    available: bool = True
    embedded: list[str] = field(default_factory=list)


def hashed_bow(text: str, dim: int) -> list[float]:
    """Deterministic bag-of-words vector: each word adds +-1 to one hashed slot."""
    vec = np.zeros(dim, dtype=np.float64)
    for word in _WORD.findall(text.lower()):
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    return vec.tolist()


@dataclass
class ServerState:
    requests: int = 0
    inputs: list[str] = field(default_factory=list)
    fail_next: list[int] = field(default_factory=list)
    auth_headers: list[str] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    state: ServerState

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        if self.path not in ("/v1/embeddings", "/embeddings"):
            return self._send(404, {"error": {"message": "not found"}})
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        state = self.state
        state.requests += 1
        state.auth_headers.append(self.headers.get("Authorization", ""))
        if state.fail_next:
            status = state.fail_next.pop(0)
            return self._send(
                status,
                {"error": {"message": f"fake failure {status}", "type": "server_error"}},
                {"retry-after": "0"},
            )
        if self.headers.get("Authorization") != f"Bearer {API_KEY}":
            return self._send(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        model = body.get("model")
        if model not in MODELS:
            return self._send(
                404,
                {
                    "error": {
                        "message": f"The model `{model}` does not exist",
                        "type": "invalid_request_error",
                        "code": "model_not_found",
                    }
                },
            )
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        state.inputs.extend(texts)
        dim = int(body.get("dimensions") or MODELS[model])
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": _encode(hashed_bow(t, dim), body.get("encoding_format")),
            }
            for i, t in enumerate(texts)
        ]
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            },
        )

    def _send(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)


def _encode(vec: list[float], fmt: str | None) -> Any:
    if fmt == "base64":
        return base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode()
    return vec


@dataclass
class FakeServer:
    url: str
    state: ServerState
    server: ThreadingHTTPServer

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_fake_server() -> tuple[FakeServer, threading.Thread]:
    """Serve the fake embeddings API on a free loopback port, in a daemon thread."""
    state = ServerState()
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    return FakeServer(f"http://127.0.0.1:{server.server_address[1]}/v1", state, server), thread


class BowEmbedding(BaseEmbedding):
    """The same hashed bag of words in process (a custom ``BaseEmbedding``)."""

    dim: int = 64

    def _get_query_embedding(self, query: str) -> list[float]:
        return hashed_bow(query, self.dim)

    def _get_text_embedding(self, text: str) -> list[float]:
        return hashed_bow(text, self.dim)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return hashed_bow(query, self.dim)


# texts the local model's runtimes are compared on: short, long (past the model's 256
# word pieces), empty, code, and other alphabets
MINILM_SAMPLE = [
    "static shift correction",
    "How do I load a survey line from disk?",
    "def strike_angle(z): return the regional strike of an impedance tensor in degrees",
    "Ünïcode, emoji 🚀 and CJK 中文 survive the word pieces",
    "",
    "x " * 600,  # past the model's 256 word pieces: cut the same way on both
    "class SurveyReader:\n    '''Read stations from a survey folder.'''\n"
    "    def read_station(self, label): ...",
]
