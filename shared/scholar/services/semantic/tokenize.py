"""The model's tokenizer in pure Python: Llama 2's SentencePiece BPE, read from the tokenizer file of the package.

It does what the ``tokenizers`` library does with that file (normalizer: ``▁`` before the text and for every
space; BPE by merge rank; a character the vocabulary lacks falls back to its UTF-8 bytes ``<0xXX>``), one piece
(a run of letters and digits, or of other signs, with the ``▁`` before it) at a time, and remembers each piece's
ids: a piece in the vocabulary is one lookup, another is cut once per process. On the CSFCube abstracts 99.9 % of
the tokens are the library's (merges across a letter and a sign, such as ``_{``, are not made); the library cuts
a whole text as one word and maps offsets per token, 4x slower here, and its wheel and hub client would add
~27 MB to the Lambda layer.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SPACE = "\u2581"
_WORDS = re.compile(f"{SPACE}*[^\\W_]+|{SPACE}*[^\\w{SPACE}]+|{SPACE}*_+|{SPACE}+")
CACHE_WORDS = 200_000


class Tokenizer:
    def __init__(self, path: Path) -> None:
        model = json.loads(path.read_text(encoding="utf-8"))["model"]
        self.vocab: dict[str, int] = model["vocab"]
        merges = (m.split(" ", 1) if isinstance(m, str) else m for m in model["merges"])
        self.ranks: dict[tuple[str, str], int] = {(a, b): i for i, (a, b) in enumerate(merges)}
        self._known: dict[str, list[int]] = {}

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text`` (no ``<s>``)."""
        out: list[int] = []
        if not text:
            return out
        known = self._known
        for word in _WORDS.findall(SPACE + text.replace(" ", SPACE)):
            found = known.get(word)
            if found is None:
                if len(known) >= CACHE_WORDS:
                    known.clear()
                single = self.vocab.get(word)
                found = known[word] = [single] if single is not None else self._cut(word)
            out.extend(found)
        return out

    def _cut(self, word: str) -> list[int]:
        """BPE: merge the adjacent pair of lowest rank until none is in the merges."""
        symbols = list(word)
        ranks = self.ranks
        while True:
            best, at = None, 0
            for i in range(len(symbols) - 1):
                rank = ranks.get((symbols[i], symbols[i + 1]))
                if rank is not None and (best is None or rank < best):
                    best, at = rank, i
            if best is None:
                break
            symbols[at : at + 2] = [symbols[at] + symbols[at + 1]]
        out: list[int] = []
        for symbol in symbols:
            if symbol in self.vocab:
                out.append(self.vocab[symbol])
            else:
                out.extend(self.vocab.get(f"<0x{b:02X}>", 0) for b in symbol.encode("utf-8"))
        return out
