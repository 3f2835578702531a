"""Stand-in for tiktoken (its core is the Rust extension tiktoken._tiktoken,
which Debian 12 does not package and which cannot be built here). Token
counts are approximated: one token per 4 UTF-8 bytes, as a proving aid only."""


class Encoding:
    name = "approx-4-bytes"

    def encode(self, text, **_kw):
        b = text.encode("utf-8", "surrogatepass")
        return [int.from_bytes(b[i:i + 4].ljust(4, b"\0"), "big") for i in range(0, len(b), 4)]

    def decode(self, tokens, **_kw):
        return b"".join(int(t).to_bytes(4, "big").rstrip(b"\0") for t in tokens).decode("utf-8", "replace")


def get_encoding(_name):
    return Encoding()


def encoding_for_model(_model):
    return Encoding()
