"""The bundled semantic model: WordLlama's 256-d static token embeddings (L2 "supercat"), read by path.

The weights (``weights/l2_supercat_256.safetensors``, float16) and the tokenizer (``tokenizers/
l2_supercat_tokenizer_config.json``) are files inside the installed ``wordllama`` package; they are opened by
explicit path (the package is located, never imported: its own loader looks for the tokenizer in the wrong folder
and may reach for a hub). A text's vector is the mean of its tokens' embeddings, scaled to length 1, so the
cosine of two texts is their dot product.

Loaded on first use and kept for the process (module-level: it holds no caller data). numpy and tokenizers are
imported only then, so importing this module costs nothing. The tokenizer is scholar.services.semantic.tokenize.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scholar.core.errors import InternalError
from scholar.services.semantic.tokenize import Tokenizer

if TYPE_CHECKING:
    import numpy as np

PACKAGE = "wordllama"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"
# What a stored vector was made with: a change of model or text recipe invalidates vectors kept on disk.
MODEL_ID = "wordllama-0.4/l2_supercat_256/mean-v1"
DIM = 256
# Tokens read of one text: the title and abstract fit; a long body is not what a vector summarises.
MAX_TOKENS = 512
# Vectors of public records kept per process (1 KB each).
RECENT = 4096


@dataclass(frozen=True)
class Model:
    embedding: np.ndarray  # (vocab, DIM) float32 (33 MB; numpy's float16 arithmetic is ten times slower)
    tokenizer: Tokenizer

    recent: dict[str, np.ndarray] = field(default_factory=dict)  # public records' vectors only (``remember``)

    def embed(self, texts: Sequence[str], *, remember: bool = False) -> np.ndarray:
        """One unit vector per text (float32, shape ``(len(texts), DIM)``); an empty text gives the zero vector.

        ``remember``: the texts are public records (a search's pool, ranked again after its expansion): their
        vectors are kept for the process, up to ``RECENT`` of them. Never a caller's own text.
        """
        import numpy as np  # noqa: PLC0415  # lazy: the cold import of the families stays free of numpy

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            if (known := self.recent.get(text)) is not None:
                out[row] = known
                continue
            ids = self.tokenizer.ids(text)[:MAX_TOKENS]
            if ids:
                vector = self.embedding[np.asarray(ids)].sum(axis=0)
                out[row] = vector / (np.linalg.norm(vector) or 1.0)
                if remember:
                    if len(self.recent) >= RECENT:
                        self.recent.clear()
                    self.recent[text] = out[row]
        return out


_model: Model | None = None
_lock = threading.Lock()


def package_dir() -> Path:
    """The installed ``wordllama`` package folder (located without importing it).

    Raises:
        InternalError: the package is not installed (it is a dependency of scholar-mcp).
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise InternalError(f"the semantic model's package {PACKAGE!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _read_safetensors(path: Path, name: str) -> np.ndarray:
    """One float16 tensor of a safetensors file, as float32 (the format: u64 header size, JSON header, raw data)."""
    import numpy as np  # noqa: PLC0415  # lazy, as above

    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    info = json.loads(data[8 : 8 + size])[name]
    if info["dtype"] != "F16":
        raise InternalError(f"the semantic model's tensor is {info['dtype']}, not F16")
    begin, end = info["data_offsets"]
    flat = np.frombuffer(data, dtype="<f2", count=(end - begin) // 2, offset=8 + size + begin)
    return flat.astype(np.float32).reshape(info["shape"])


def load() -> Model:
    """The model, loaded on first call (a few tenths of a second: benchmarks/relevance_bench.py) and kept."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                root = package_dir()
                tokenizer = Tokenizer(root / TOKENIZER)
                embedding = _read_safetensors(root / WEIGHTS, TENSOR)
                if embedding.shape[1] != DIM:
                    raise InternalError(f"the semantic model has {embedding.shape[1]} dimensions, not {DIM}")
                _model = Model(embedding=embedding, tokenizer=tokenizer)
    return _model


def embed(texts: Sequence[str], *, remember: bool = False) -> np.ndarray:
    """Unit vectors of ``texts`` (see ``Model.embed``)."""
    return load().embed(texts, remember=remember)
