#!/usr/bin/env python3
"""Read a Kalah endgame database without Rust: the proof that db-format/FORMAT.md suffices.

Written from db-format/FORMAT.md alone (standard library only). It opens level files of
format version 1 (a byte an entry) and 2 (compact: Huffman-coded deltas in slots),
validates the header field by field as FORMAT.md's "How a reader must validate" asks,
recomputes the XXH3-64 checksum of the payload (a pure-Python XXH3-64, below, for inputs
of any length), decodes every block of a compact file, ranks a position and prints its
database value and final margin.

Usage:
  kdb.py selftest                     FORMAT.md's examples (hashes, ranks) and the streamed hash
  kdb.py info FILE...                 header fields of each level file (no payload read)
  kdb.py verify PATH...               header, length, checksum and entry range of each level
                                      file (a directory: every *.kdb in it); a compact file's
                                      every block decoded (pure Python: about a million
                                      entries a second)
  kdb.py probe PATH --position P...   the value and final margin of each position P, in the
                                      form `kalah` takes: 'A-pits/A-store/B-pits/B-store/side',
                                      e.g. 1,0,2/0/0,4,0/0/A. PATH is a level file or a database
                                      directory (the level with the position's seed count is
                                      opened). Rules: --capture, --sowing, --direction,
                                      --opp-store, --end, --remaining (default: the standard
                                      rules); the file's header must match them. With
                                      --no-checksum the payload checksum is not recomputed
                                      (pure Python hashes a few MB a second).

Exit status: 0 on success, 1 when a file is invalid (the message names it and says why),
2 on a usage error. Never a Python traceback for a bad file or position.
"""

import argparse
import os
import struct
import sys
from math import comb

MASK = (1 << 64) - 1

# ---------------------------------------------------------------------------------------------
# XXH3-64, seed 0, default secret: the public XXH3 specification (xxHash's doc/xxhash_spec.md).
# Every read of input or secret is little-endian; every sum and product wraps at 64 bits.

PRIME32_1 = 0x9E3779B1
PRIME32_2 = 0x85EBCA77
PRIME32_3 = 0xC2B2AE3D
PRIME64_1 = 0x9E3779B185EBCA87
PRIME64_2 = 0xC2B2AE3D27D4EB4F
PRIME64_3 = 0x165667B19E3779F9
PRIME64_4 = 0x85EBCA77C2B2AE63
PRIME64_5 = 0x27D4EB2F165667C5
PRIME_MX1 = 0x165667919E3779F9
PRIME_MX2 = 0x9FB21C651E98DF25

SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)
SECRET_LEN = len(SECRET)  # 192
STRIPES_PER_BLOCK = (SECRET_LEN - 64) // 8  # 16
BLOCK_LEN = 64 * STRIPES_PER_BLOCK  # 1024


def _u32(b, i):
    return int.from_bytes(b[i : i + 4], "little")


def _u64(b, i):
    return int.from_bytes(b[i : i + 8], "little")


def _bswap32(x):
    return int.from_bytes(x.to_bytes(4, "little"), "big")


def _bswap64(x):
    return int.from_bytes(x.to_bytes(8, "little"), "big")


def _rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & MASK


def _avalanche(x):
    x ^= x >> 37
    x = (x * PRIME_MX1) & MASK
    return x ^ (x >> 32)


def _avalanche_xxh64(x):
    x ^= x >> 33
    x = (x * PRIME64_2) & MASK
    x ^= x >> 29
    x = (x * PRIME64_3) & MASK
    return x ^ (x >> 32)


def _fold128(a, b):
    """Low half xor high half of the 128-bit product a * b."""
    p = a * b
    return (p & MASK) ^ (p >> 64)


def _mix16(data, off, soff, seed=0):
    lo = _u64(data, off) ^ ((_u64(SECRET, soff) + seed) & MASK)
    hi = _u64(data, off + 8) ^ ((_u64(SECRET, soff + 8) - seed) & MASK)
    return _fold128(lo, hi)


def _len_0to16(data, n, seed=0):
    if n > 8:
        lo = ((_u64(SECRET, 24) ^ _u64(SECRET, 32)) + seed) & MASK
        hi = ((_u64(SECRET, 40) ^ _u64(SECRET, 48)) - seed) & MASK
        lo ^= _u64(data, 0)
        hi ^= _u64(data, n - 8)
        acc = (n + _bswap64(lo) + hi + _fold128(lo, hi)) & MASK
        return _avalanche(acc)
    if n >= 4:
        seed ^= _bswap32(seed & 0xFFFFFFFF) << 32
        first, last = _u32(data, 0), _u32(data, n - 4)
        combined = last | (first << 32)
        v = (((_u64(SECRET, 8) ^ _u64(SECRET, 16)) - seed) & MASK) ^ combined
        v ^= _rotl64(v, 49) ^ _rotl64(v, 24)
        v = (v * PRIME_MX2) & MASK
        v ^= (v >> 35) + n
        v = (v * PRIME_MX2) & MASK
        return v ^ (v >> 28)
    if n > 0:
        combined = data[n - 1] | (n << 8) | (data[0] << 16) | (data[n >> 1] << 24)
        v = (((_u32(SECRET, 0) ^ _u32(SECRET, 4)) + seed) & MASK) ^ combined
        return _avalanche_xxh64(v)
    return _avalanche_xxh64(seed ^ _u64(SECRET, 56) ^ _u64(SECRET, 64))


def _len_17to128(data, n):
    acc = (n * PRIME64_1) & MASK
    rounds = ((n - 1) >> 5) + 1
    for i in range(rounds - 1, -1, -1):
        acc += _mix16(data, 16 * i, 32 * i)
        acc += _mix16(data, n - 16 * i - 16, 32 * i + 16)
    return _avalanche(acc & MASK)


def _len_129to240(data, n):
    acc = (n * PRIME64_1) & MASK
    for i in range(8):
        acc += _mix16(data, 16 * i, 16 * i)
    acc = _avalanche(acc & MASK)
    for i in range(8, n >> 4):
        acc += _mix16(data, 16 * i, 16 * (i - 8) + 3)
    acc += _mix16(data, n - 16, 119)
    return _avalanche(acc & MASK)


_SECRET_WORDS = struct.unpack_from("<24Q", SECRET)
# The secret's 64-bit words at byte offset 8 * s for the stripe s of a block (offset 8 s):
_STRIPE_KEYS = [struct.unpack_from("<8Q", SECRET, 8 * s) for s in range(STRIPES_PER_BLOCK)]
_LAST_KEY = struct.unpack_from("<8Q", SECRET, SECRET_LEN - 71)
_SCRAMBLE_KEY = struct.unpack_from("<8Q", SECRET, SECRET_LEN - 64)


def _accumulate(acc, lanes, base, key):
    """One stripe: lanes[base .. base + 8] (input words) against the 8 secret words key.

    Lane i adds the product of the halves of (word i xor key i) to accumulator i, and the
    word itself to accumulator i xor 1."""
    for i in range(8):
        word = lanes[base + i]
        v = word ^ key[i]
        acc[i] += (v & 0xFFFFFFFF) * (v >> 32)
        acc[i ^ 1] += word
    for i in range(8):
        acc[i] &= MASK


def _scramble(acc):
    for i in range(8):
        a = acc[i]
        a ^= a >> 47
        a ^= _SCRAMBLE_KEY[i]
        acc[i] = (a * PRIME32_1) & MASK


def _merge(acc, init, soff):
    r = init
    for i in range(4):
        r += _fold128(acc[2 * i] ^ _u64(SECRET, soff + 16 * i), acc[2 * i + 1] ^ _u64(SECRET, soff + 16 * i + 8))
    return _avalanche(r & MASK)


class _Long:
    """XXH3-64 of inputs over 240 bytes, fed in pieces (a level file can be hundreds of MB).

    Full 1024-byte blocks are consumed as they come, except that the input's last block (full or
    not) is kept back: the specification processes it differently (all stripes but the last,
    then the input's last 64 bytes with their own secret offset)."""

    def __init__(self):
        self.acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1]
        self.pending = b""
        self.tail = b""
        self.total = 0

    def update(self, data):
        self.total += len(data)
        buf = self.pending + data
        # Keep at least one byte back so the last block is never consumed here.
        full = (len(buf) - 1) // BLOCK_LEN
        fmt = "<%dQ" % (BLOCK_LEN // 8)
        for b in range(full):
            lanes = struct.unpack_from(fmt, buf, b * BLOCK_LEN)
            for s in range(STRIPES_PER_BLOCK):
                _accumulate(self.acc, lanes, 8 * s, _STRIPE_KEYS[s])
            _scramble(self.acc)
        self.pending = buf[full * BLOCK_LEN :]
        # The last 64 bytes of the input may reach back into a block already consumed.
        self.tail = (self.tail + data)[-64:]

    def digest(self):
        last = self.pending
        acc = list(self.acc)
        stripes = (len(last) - 1) // 64
        lanes = struct.unpack_from("<%dQ" % (8 * stripes), last) if stripes else ()
        for s in range(stripes):
            _accumulate(acc, lanes, 8 * s, _STRIPE_KEYS[s])
        _accumulate(acc, struct.unpack("<8Q", self.tail), 0, _LAST_KEY)
        return _merge(acc, (self.total * PRIME64_1) & MASK, 11)


def xxh3_64(data):
    """XXH3-64 with seed 0 and the default secret of a bytes-like object of any length."""
    data = bytes(data)
    n = len(data)
    if n <= 16:
        return _len_0to16(data, n)
    if n <= 128:
        return _len_17to128(data, n)
    if n <= 240:
        return _len_129to240(data, n)
    h = _Long()
    h.update(data)
    return h.digest()


def xxh3_64_file(f, length, chunk=1 << 20):
    """XXH3-64 of the next `length` bytes of the open binary file f, read in chunks."""
    if length <= 240:
        data = f.read(length)
        if len(data) != length:
            raise KdbError("file shorter than its header says")
        return xxh3_64(data)
    h = _Long()
    left = length
    while left:
        data = f.read(min(chunk, left))
        if not data:
            raise KdbError("file shorter than its header says")
        h.update(data)
        left -= len(data)
    return h.digest()


# ---------------------------------------------------------------------------------------------
# Level files (FORMAT.md "Layout", "Header", "Rule codes", "How a reader must validate").

MAGIC = b"KALAHDB\x00"
HEADER_LEN = 64
RULES = [
    ("capture", ["standard", "empty", "none"]),
    ("sowing", ["single", "relay"]),
    ("direction", ["ccw", "cw"]),
    ("opp_store", ["skip", "sow"]),
    ("end", ["either", "mover"]),
    ("remaining", ["owner", "emptier", "discard"]),
]
DEFAULT_RULES = {name: names[0] for name, names in RULES}


class KdbError(Exception):
    """A file or position this reader rejects; the message says why."""


class Level:
    """The validated header of one level file (and, in version 2, its code table)."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                head = f.read(HEADER_LEN)
            size = os.path.getsize(path)
        except OSError as e:
            raise KdbError("%s: cannot read: %s" % (path, e.strerror or e))
        if len(head) < 8 or head[:8] != MAGIC:
            raise KdbError("%s: not a Kalah database level file (no KALAHDB magic)" % path)
        if len(head) < HEADER_LEN:
            raise KdbError("%s: truncated header (%d of 64 bytes)" % (path, len(head)))
        (version,) = struct.unpack_from("<I", head, 8)
        if version not in (1, 2):
            raise KdbError("%s: unsupported format version %d (this reader knows versions 1 and 2)" % (path, version))
        self.version = version
        self.pits = head[12]
        if not 1 <= self.pits <= 8:
            raise KdbError("%s: pits %d outside 1..=8" % (path, self.pits))
        self.rules = {}
        for i, (name, names) in enumerate(RULES):
            code = head[13 + i]
            if code >= len(names):
                raise KdbError("%s: unknown %s rule code %d" % (path, name, code))
            self.rules[name] = names[code]
        self.seeds = head[19]
        if self.seeds > 127:
            raise KdbError("%s: seeds %d over 127" % (path, self.seeds))
        width, encoding = (1, 0) if version == 1 else (0, 1)
        if head[20] != width:
            raise KdbError("%s: entry width %d (version %d has %d)" % (path, head[20], version, width))
        if head[21] != encoding:
            raise KdbError("%s: entry encoding %d (version %d has %d)" % (path, head[21], version, encoding))
        if any(head[48:64]) or (version == 1 and (any(head[22:24]) or any(head[40:48]))):
            raise KdbError("%s: reserved header bytes are not zero" % path)
        (self.count,) = struct.unpack_from("<Q", head, 24)
        (self.checksum,) = struct.unpack_from("<Q", head, 32)
        cells = 2 * self.pits
        expected = comb(self.seeds + cells - 1, cells - 1)
        if expected > MASK:
            raise KdbError("%s: level of %d positions cannot exist (over 64 bits)" % (path, expected))
        if self.count != expected:
            raise KdbError("%s: entry count %d, expected C(%d, %d) = %d" % (path, self.count, self.seeds + cells - 1, cells - 1, expected))
        if version == 1:
            self.payload_len = self.count
        else:
            self._compact_layout(head)
        if size != HEADER_LEN + self.payload_len:
            raise KdbError("%s: %d bytes, expected 64 + %d = %d (truncated or padded)" % (path, size, self.payload_len, HEADER_LEN + self.payload_len))
        if version == 2:
            self._code_table()

    # FORMAT.md "Version 2: compact files".

    def _compact_layout(self, head):
        self.block_shift, self.slot_shift = head[22], head[23]
        (self.overflow_len,) = struct.unpack_from("<Q", head, 40)
        if not 3 <= self.block_shift <= 6 or not 4 <= self.slot_shift <= 6:
            raise KdbError("%s: block shift %d, slot shift %d outside 3..=6, 4..=6" % (self.path, self.block_shift, self.slot_shift))
        self.block = 1 << self.block_shift
        self.slot = 1 << self.slot_shift
        self.symbols = 2 * self.seeds + 1
        self.blocks = -(-self.count // self.block)
        inline = 8 * self.slot - 40
        self.max_cont = -(-max(0, 12 * self.block - inline) // 8)
        if self.overflow_len > self.blocks * self.max_cont:
            raise KdbError("%s: %d bytes of continuations, more than %d blocks can need" % (self.path, self.overflow_len, self.blocks))
        self.slots_at = -(-self.symbols // self.slot) * self.slot
        self.overflow_at = self.slots_at + self.slot * self.blocks
        self.payload_len = self.overflow_at + self.overflow_len

    def _code_table(self):
        with open(self.path, "rb") as f:
            f.seek(HEADER_LEN)
            table = f.read(self.slots_at)
        lengths = list(table[: self.symbols])
        if any(table[self.symbols :]):
            raise KdbError("%s: code table padding is not zero" % self.path)
        if any(n > 12 for n in lengths):
            raise KdbError("%s: a code length over 12" % self.path)
        used = [s for s in range(self.symbols) if lengths[s]]
        kraft = sum(1 << (12 - lengths[s]) for s in used)
        if not used or (len(used) == 1 and lengths[used[0]] != 1) or (len(used) > 1 and kraft != 4096):
            raise KdbError("%s: the code table is not a complete prefix code" % self.path)
        # Canonical codes: by (length, symbol), each the previous plus one, shifted left by
        # the increase in length. `window[w]`: the (symbol, length) whose code starts the
        # 12-bit window w, or None.
        self.window = [None] * 4096
        code, prev = -1, 0
        for s in sorted(used, key=lambda s: (lengths[s], s)):
            code = (code + 1) << (lengths[s] - prev)
            prev = lengths[s]
            lo = code << (12 - prev)
            for w in range(lo, lo + (1 << (12 - prev))):
                self.window[w] = (s, prev)

    def _block_bits(self, f, b):
        """The codes of block b as an integer of `n` bits, with n, and its continuation's
        offset and length in bytes (None for a block in its slot)."""
        f.seek(HEADER_LEN + self.slots_at + self.slot * b)
        slot = f.read(self.slot)
        if len(slot) != self.slot:
            raise KdbError("%s: file shorter than its header says" % self.path)
        if slot[0] & 0x80 == 0:
            return int.from_bytes(slot, "big"), 8 * self.slot, 1, None
        at = int.from_bytes(slot[:5], "big") & ((1 << 39) - 1)
        if at > self.overflow_len:
            raise KdbError("%s: block %d: continuation past the file" % (self.path, b))
        f.seek(HEADER_LEN + self.overflow_at + at)
        cont = f.read(min(self.max_cont, self.overflow_len - at))
        data = slot[5:] + cont
        return int.from_bytes(data, "big"), 8 * len(data), 0, at

    def _decode(self, bits, nbits, pos, count):
        """The entries of `count` codes of `bits` (an integer of `nbits` bits, bit 0 its
        most significant, zeros after its end) from bit `pos`, and the bit after them."""
        out, u, n, k = [], self.seeds, self.symbols, self.seeds
        padded = bits << 12
        for _ in range(count):
            w = (padded >> (nbits - pos)) & 0xFFF if pos <= nbits else 0
            hit = self.window[w]
            if hit is None:
                raise KdbError("%s: bits that are no code (corrupted)" % self.path)
            s, length = hit
            u = (u + s) % n
            out.append(u - k)
            pos += length
        return out, pos

    def verify(self):
        """Recompute the payload checksum and check every entry: in version 1 that it lies
        in -seeds..=seeds, in version 2 that every block decodes as FORMAT.md says."""
        with open(self.path, "rb") as f:
            f.seek(HEADER_LEN)
            got = xxh3_64_file(f, self.payload_len)
            if got != self.checksum:
                raise KdbError("%s: payload checksum mismatch: header 0x%016x, payload 0x%016x" % (self.path, self.checksum, got))
            if self.version == 2:
                self._walk(f)
                return
            f.seek(HEADER_LEN)
            k = self.seeds
            left = self.count
            while left:
                data = f.read(min(1 << 20, left))
                if not data:
                    raise KdbError("%s: file shorter than its header says" % self.path)
                # Bytes k+1 ..= 256-k-1 are the out-of-range values (i8 above k or below -k).
                if k < 127 and any(k < b < 256 - k for b in data):
                    raise KdbError("%s: an entry lies outside -%d..=%d" % (self.path, k, k))
                left -= len(data)

    def _walk(self, f):
        """Every block of a compact file, strictly (FORMAT.md "How a reader must validate")."""
        nxt = 0
        for b in range(self.blocks):
            count = min(self.block, self.count - b * self.block)
            bits, nbits, pos, at = self._block_bits(f, b)
            _, end = self._decode(bits, nbits, pos, count)
            if end > nbits:
                raise KdbError("%s: block %d: codes run past their bytes" % (self.path, b))
            own = nbits
            if at is not None:
                if at != nxt:
                    raise KdbError("%s: block %d: continuation at %d, the one before ends at %d" % (self.path, b, at, nxt))
                if end < 8 * self.slot:
                    raise KdbError("%s: block %d overflows though its codes fit its slot" % (self.path, b))
                cont = -(-(end - (8 * self.slot - 40)) // 8)
                nxt = at + cont
                own = 8 * (self.slot - 5 + cont)
            # The bits after the codes, up to the end of the block's own bytes, are zero.
            if (bits >> (nbits - own)) & ((1 << (own - end)) - 1):
                raise KdbError("%s: block %d: bits after the codes are not zero" % (self.path, b))
        if nxt != self.overflow_len:
            raise KdbError("%s: the continuations end at byte %d, the header gives %d" % (self.path, nxt, self.overflow_len))

    def slug(self):
        r = self.rules
        return "m%d-%s-%s-%s-%s-%s-%s" % (self.pits, r["capture"], r["sowing"], r["direction"], r["opp_store"], r["end"], r["remaining"])

    def name(self):
        return "%s-k%03d.kdb" % (self.slug(), self.seeds)

    def value(self, rank):
        """The entry of rank `rank`: the future net gain of the side to move."""
        if not 0 <= rank < self.count:
            raise KdbError("%s: rank %d outside 0..%d" % (self.path, rank, self.count))
        with open(self.path, "rb") as f:
            if self.version == 2:
                bits, nbits, pos, _ = self._block_bits(f, rank >> self.block_shift)
                out, _ = self._decode(bits, nbits, pos, (rank & (self.block - 1)) + 1)
                return out[-1]
            f.seek(HEADER_LEN + rank)
            b = f.read(1)
        if len(b) != 1:
            raise KdbError("%s: file shorter than its header says" % self.path)
        v = b[0] - 256 if b[0] >= 128 else b[0]
        if not -self.seeds <= v <= self.seeds:
            raise KdbError("%s: entry %d is %d, outside -%d..=%d (corrupted)" % (self.path, rank, v, self.seeds, self.seeds))
        return v


def rank(c):
    """FORMAT.md "Ranking": the combinatorial number system index of the stars-and-bars bars."""
    r, s = 0, 0
    for j in range(len(c) - 1):
        s += c[j]
        r += comb(s + j, j + 1)
    return r


# ---------------------------------------------------------------------------------------------
# Positions, in the notation of the `kalah` command.


class Position:
    def __init__(self, text):
        parts = text.split("/")
        if len(parts) != 5:
            raise KdbError("position %r: expected 'A-pits/A-store/B-pits/B-store/side'" % text)
        try:
            self.a = [int(x) for x in parts[0].split(",")]
            self.b = [int(x) for x in parts[2].split(",")]
            self.a_store = int(parts[1])
            self.b_store = int(parts[3])
        except ValueError:
            raise KdbError("position %r: pits and stores must be whole numbers" % text)
        if len(self.a) != len(self.b) or not 1 <= len(self.a) <= 8:
            raise KdbError("position %r: both rows need the same number of pits, 1 to 8" % text)
        if min(self.a + self.b + [self.a_store, self.b_store]) < 0:
            raise KdbError("position %r: negative seed count" % text)
        side = parts[4].strip().upper()
        if side not in ("A", "B"):
            raise KdbError("position %r: side to move must be A (South) or B (North)" % text)
        self.side = side
        self.text = text

    def cells(self):
        """FORMAT.md "What a database holds": the mover's pits 1..m, then the opponent's 1..m."""
        return self.a + self.b if self.side == "A" else self.b + self.a

    def seeds(self):
        return sum(self.a) + sum(self.b)


def open_level(path, pits, seeds, rules):
    """The level file for (pits, seeds, rules): PATH itself or the file of that name in it."""
    if os.path.isdir(path):
        slug = "m%d-%s-%s-%s-%s-%s-%s" % (pits, rules["capture"], rules["sowing"], rules["direction"], rules["opp_store"], rules["end"], rules["remaining"])
        file = os.path.join(path, "%s-k%03d.kdb" % (slug, seeds))
        if not os.path.exists(file):
            raise KdbError("%s: no level file %s-k%03d.kdb (the database lacks this level)" % (path, slug, seeds))
    else:
        file = path
    level = Level(file)
    # FORMAT.md step 4: never use a file solved under other rules or for another level.
    if level.pits != pits or level.seeds != seeds:
        raise KdbError("%s: holds m=%d with %d seeds, the position has m=%d with %d seeds" % (file, level.pits, level.seeds, pits, seeds))
    if level.rules != rules:
        diff = ", ".join("%s %s (wanted %s)" % (k, level.rules[k], rules[k]) for k in rules if level.rules[k] != rules[k])
        raise KdbError("%s: solved under other rules: %s" % (file, diff))
    return level


def signed(v):
    return "+%d" % v if v > 0 else "%d" % v


# FORMAT.md "Example of a compact file": level 40 of Kalah(1, ·), standard rules.
COMPACT_EXAMPLE = (
    "4b414c4148444200020000000100000000000028000105042900000000000000"
    "5265b513a90c89d5090000000000000000000000000000000000000000000000"
    "0500060003000606040006000500050000000500050000000000000005000505"
    "0000050000000000050505000005000505050000000000000000000000050000"
    "0005000500050000000500050000050500000000000000000000000000000000"
    "80000000008786e7dfae4a146a6bb7cd0245c74d888000000000000000000000"
    "d9f4b56416c1f00300"
)
COMPACT_EXAMPLE_VALUES = [
    -40, -38, -38, 40, -34, -24, 4, -32, -12, -8, 40, -10, 8, -24, -30, 10, -24, 10, -2, 4,
    12, 4, -16, -2, 6, 0, 4, 16, 2, 6, 10, 40, 4, 12, 26, 10, 14, 12, 12, -2, 40,
]


def cmd_selftest(args):
    """FORMAT.md's own examples, and the streamed hash against the one-piece hash."""
    checks = []
    checks.append(("XXH3-64 of the empty input", xxh3_64(b""), 0x2D06800538D394C2))
    checks.append(("XXH3-64 of FORMAT.md's example payload fe 00 02", xxh3_64(bytes([0xFE, 0, 2])), 0x75E63233F7E3487B))
    checks.append(("rank of [1,0,1,0]", rank([1, 0, 1, 0]), 6))
    checks.append(("rank of FORMAT.md's m=6, k=5 example", rank([0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 1]), 1003))
    data = bytes((i * 7919 + (i >> 5)) & 0xFF for i in range(5000))
    for n in (241, 1024, 1025, 2048, 2049, 5000):
        whole = xxh3_64(data[:n])
        for piece in (1, 63, 64, 1000, 1024):
            h = _Long()
            for i in range(0, n, piece):
                h.update(data[i : min(i + piece, n)])
            checks.append(("XXH3-64 of %d bytes fed %d at a time" % (n, piece), h.digest(), whole))
    # FORMAT.md's compact file (version 2), byte for byte: every entry decodes, and the
    # walk of verify() accepts it.
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m1-standard-single-ccw-skip-either-owner-k040.kdb")
        with open(path, "wb") as f:
            f.write(bytes.fromhex(COMPACT_EXAMPLE))
        lv = Level(path)
        lv.verify()
        got = [lv.value(r) for r in range(lv.count)]
        checks.append(("FORMAT.md's compact example: its 41 entries", got, COMPACT_EXAMPLE_VALUES))
        checks.append(("FORMAT.md's compact example: its checksum", lv.checksum, 0xD5890CA913B56552))
    bad = [c for c in checks if c[1] != c[2]]
    for name, got, want in bad:
        print("FAIL  %s: got 0x%x, expected 0x%x" % (name, got, want))
    if bad:
        raise KdbError("%d of %d self-checks failed" % (len(bad), len(checks)))
    print("ok    %d self-checks" % len(checks))


def cmd_info(args):
    for path in args.files:
        lv = Level(path)
        print("file:      %s" % path)
        print("version:   %d (%s)" % (lv.version, "one byte an entry" if lv.version == 1 else "compact"))
        print("rules:     m=%d %s" % (lv.pits, " ".join("%s=%s" % (k.replace("_", "-"), v) for k, v in lv.rules.items())))
        print("seeds:     %d on the board" % lv.seeds)
        print("entries:   %d" % lv.count)
        print("checksum:  0x%016x (header)" % lv.checksum)
        print("name:      %s" % lv.name())


def cmd_verify(args):
    files = []
    for path in args.paths:
        if os.path.isdir(path):
            names = sorted(n for n in os.listdir(path) if n.endswith(".kdb"))
            if not names:
                raise KdbError("%s: no *.kdb level files" % path)
            files += [os.path.join(path, n) for n in names]
        else:
            files.append(path)
    bad = 0
    for path in files:
        try:
            lv = Level(path)
            lv.verify()
            print("ok    %s  %d entries  xxh3 0x%016x" % (path, lv.count, lv.checksum))
        except KdbError as e:
            print("BAD   %s" % e)
            bad += 1
    if bad:
        raise KdbError("%d of %d level files failed" % (bad, len(files)))


def cmd_probe(args):
    rules = {name: getattr(args, name) for name, _ in RULES}
    verified = set()
    for text in args.position:
        pos = Position(text)
        cells = pos.cells()
        k = pos.seeds()
        if k > 127:
            raise KdbError("position %r: %d seeds on the board, over 127" % (text, k))
        level = open_level(args.path, len(pos.a), k, rules)
        if not args.no_checksum and level.path not in verified:
            level.verify()
            verified.add(level.path)
        r = rank(cells)
        v = level.value(r)
        store = pos.a_store - pos.b_store
        margin = store + v if pos.side == "A" else store - v
        print("position: %s" % text)
        print("level:    %s (%d seeds on the board), rank %d" % (os.path.basename(level.path), k, r))
        print("value:    %s (future net gain of %s, the side to move)" % (signed(v), pos.side))
        print("margin:   %s (final South minus North)" % signed(margin))


def main(argv=None):
    p = argparse.ArgumentParser(description="Read Kalah endgame database level files (db-format/FORMAT.md).")
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("info", help="print the header of level files")
    pi.add_argument("files", nargs="+")
    pv = sub.add_parser("verify", help="check header, length, checksum and entry range")
    pv.add_argument("paths", nargs="+")
    pp = sub.add_parser("probe", help="print the value and final margin of positions")
    pp.add_argument("path", help="a level file or a database directory")
    pp.add_argument("--position", action="append", required=True, help="A-pits/A-store/B-pits/B-store/side")
    for name, names in RULES:
        pp.add_argument("--" + name.replace("_", "-"), dest=name, choices=names, default=names[0])
    pp.add_argument("--no-checksum", action="store_true", help="skip the payload checksum")
    sub.add_parser("selftest", help="check FORMAT.md's examples and the streamed hash")
    args = p.parse_args(argv)
    try:
        {"info": cmd_info, "verify": cmd_verify, "probe": cmd_probe, "selftest": cmd_selftest}[args.cmd](args)
    except KdbError as e:
        print("kdb.py: error: %s" % e, file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
