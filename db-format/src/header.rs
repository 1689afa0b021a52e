//! The 64-byte header at the start of every level file.
//!
//! Why a fixed 64 bytes: a reader can validate a file by reading one small
//! block before mapping it, and the payload starts at a fixed, cache-line
//! aligned offset (in version 1, entry `i` is at byte `64 + i` in every file).
//!
//! Layout (serialised with bincode 2, `standard()` +
//! `with_fixed_int_encoding()` + `with_little_endian()`: every field at a fixed
//! offset, **all integers little-endian**, no length prefixes):
//!
//! | offset | size | field            | meaning                                                        |
//! |-------:|-----:|------------------|----------------------------------------------------------------|
//! |      0 |    8 | `magic`          | `KALAHDB\0` (`4b 41 4c 41 48 44 42 00`)                         |
//! |      8 |    4 | `version`        | u32, format version: [`VERSION_BYTE`] = 1 or [`VERSION_COMPACT`] = 2 |
//! |     12 |    1 | `rules.pits`     | u8, pits per side m, 1..=8                                      |
//! |     13 |    1 | `rules.capture`  | u8, 0 standard, 1 empty, 2 none                                 |
//! |     14 |    1 | `rules.sowing`   | u8, 0 single, 1 relay                                           |
//! |     15 |    1 | `rules.direction`| u8, 0 ccw, 1 cw                                                 |
//! |     16 |    1 | `rules.opp_store`| u8, 0 skip, 1 sow                                               |
//! |     17 |    1 | `rules.end`      | u8, 0 either, 1 mover                                           |
//! |     18 |    1 | `rules.remaining`| u8, 0 owner, 1 emptier, 2 discard                               |
//! |     19 |    1 | `seeds`          | u8, seeds on the board k, 0..=127                               |
//! |     20 |    1 | `entry_width`    | u8, bytes per entry: 1 (version 1), 0 = variable (version 2)    |
//! |     21 |    1 | `entry_encoding` | u8, 0 = i8 two's complement (version 1), 1 = Huffman-coded deltas in blocks (version 2) |
//! |     22 |    1 | `block_shift`    | u8, version 2: log2 of the entries a block, 3..=6; version 1: zero |
//! |     23 |    1 | `slot_shift`     | u8, version 2: log2 of the bytes a slot, 4..=6; version 1: zero  |
//! |     24 |    8 | `entry_count`    | u64, number of entries, `C(k + 2m - 1, 2m - 1)`                 |
//! |     32 |    8 | `checksum`       | u64, XXH3-64 (seed 0) of the payload (bytes 64..end)            |
//! |     40 |    8 | `overflow_len`   | u64, version 2: bytes of the blocks' continuations; version 1: zero |
//! |     48 |   16 | reserved         | zero                                                            |
//!
//! Invariant of a decoded [`Header`]: magic and version are right, the rules
//! are valid, `seeds <= 127`, `entry_count == level_size(2 * pits, seeds)`,
//! reserved bytes zero; version 1: width 1, encoding 0, bytes 22..24 and 40..48 zero
//! (`blocks` is `None`); version 2: width 0, encoding 1, the shifts in their ranges and
//! `overflow_len` at most the blocks times the most continuation bytes a block can need
//! (`blocks` is `Some`).

use std::path::Path;

use bincode::config::{Configuration, Fixint, LittleEndian, NoLimit};

use crate::error::DbError;
use crate::layout::{BlockParams, CompactOptions, Layout};
use crate::ranking::checked_level_size;
use crate::rules::RulesKey;
use crate::value::{
    ENCODING_DELTA_HUFFMAN, ENCODING_NET_GAIN_I8, ENTRY_WIDTH, ENTRY_WIDTH_VARIABLE,
    MAX_LEVEL_SEEDS,
};

/// Length of the header in bytes; the payload starts here.
pub const HEADER_LEN: usize = 64;

/// The 8 magic bytes every level file starts with.
pub const MAGIC: [u8; 8] = *b"KALAHDB\0";

/// Format version 1: one `i8` an entry.
pub const VERSION_BYTE: u32 = 1;

/// Format version 2: Huffman-coded deltas in blocks ([`crate::Compact`]).
pub const VERSION_COMPACT: u32 = 2;

/// The versions this crate reads, for error messages.
pub const SUPPORTED_VERSIONS: &str = "versions 1 and 2";

/// Bytes of the header's tail that are reserved (zero).
const RESERVED_TAIL: usize = 16;

// The fields of `Wire` add up to exactly HEADER_LEN bytes (and the unit test
// `encoded_length_is_64` checks bincode agrees).
const _: () = assert!(8 + 4 + 7 + 1 + 1 + 1 + 1 + 1 + 8 + 8 + 8 + RESERVED_TAIL == HEADER_LEN);

/// The bincode configuration of the header (and of a shard's, [`crate::shard`]).
pub(crate) const CONFIG: Configuration<LittleEndian, Fixint, NoLimit> = bincode::config::standard()
    .with_fixed_int_encoding()
    .with_little_endian();

/// The first 20 bytes of a level file's header and of a shard's (see [`crate::shard`],
/// whose bytes 12..20 are its level's): what the file is, and the level it holds.
#[derive(bincode::Encode, bincode::Decode)]
pub(crate) struct Lead {
    pub(crate) magic: [u8; 8],
    pub(crate) version: u32,
    pub(crate) rules: RulesKey,
    pub(crate) seeds: u8,
}

impl Lead {
    /// [`DbError::UnsupportedVersion`] unless the version is `expected`.
    pub(crate) fn check_version(&self, expected: u32, path: &Path) -> Result<(), DbError> {
        if self.version != expected {
            return Err(DbError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: self.version,
                supported: if expected == 2 {
                    "version 2"
                } else {
                    "version 1"
                },
            });
        }
        Ok(())
    }
}

/// `wire` (a header's `Wire` struct) in its `N` bytes: each `Wire`'s fields add up to
/// exactly its header's length (a const assert and a unit test beside it).
pub(crate) fn encode_wire<const N: usize>(wire: impl bincode::Encode) -> [u8; N] {
    let mut out = [0u8; N];
    let written = bincode::encode_into_slice(wire, &mut out, CONFIG)
        .expect("a Wire encodes to exactly its header's length (const assert + unit test)");
    debug_assert_eq!(written, N);
    out
}

/// The header as it lies on disk, field for field (see the table above).
#[derive(bincode::Encode, bincode::Decode)]
struct Wire {
    lead: Lead,
    entry_width: u8,
    entry_encoding: u8,
    block_shift: u8,
    slot_shift: u8,
    entry_count: u64,
    checksum: u64,
    overflow_len: u64,
    reserved: [u8; RESERVED_TAIL],
}

/// The meaningful fields of a level file's header (magic and reserved bytes
/// are implied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version: [`VERSION_BYTE`] or [`VERSION_COMPACT`].
    pub version: u32,
    /// Rules the level was solved under.
    pub rules: RulesKey,
    /// Seeds on the board, k.
    pub seeds: u8,
    /// Bytes per entry (1), or 0 for the variable-length entries of version 2.
    pub entry_width: u8,
    /// Entry encoding code (0: `i8` net gain of the side to move; 1: Huffman-coded
    /// deltas of it in blocks).
    pub entry_encoding: u8,
    /// Entries in the level, `level_size(2 * pits, seeds)`.
    pub entry_count: u64,
    /// XXH3-64 (seed 0) of the payload.
    pub checksum: u64,
    /// Version 2: the block parameters; `None` in version 1.
    pub blocks: Option<BlockParams>,
}

impl Header {
    /// The version-1 header of the level (`rules`, `seeds`) whose payload hashes to
    /// `checksum`.
    pub fn new(rules: RulesKey, seeds: u32, checksum: u64) -> Result<Header, DbError> {
        rules.validate()?;
        let seeds_u8 = u8::try_from(seeds)
            .ok()
            .filter(|&s| u32::from(s) <= MAX_LEVEL_SEEDS)
            .ok_or(DbError::TooManySeeds {
                seeds,
                max: MAX_LEVEL_SEEDS,
            })?;
        let cells = rules.cells();
        let entry_count =
            checked_level_size(cells, seeds).ok_or(DbError::SizeOverflow { cells, seeds })?;
        Ok(Header {
            version: VERSION_BYTE,
            rules,
            seeds: seeds_u8,
            entry_width: ENTRY_WIDTH,
            entry_encoding: ENCODING_NET_GAIN_I8,
            entry_count,
            checksum,
            blocks: None,
        })
    }

    /// Makes this a version-2 header with the block parameters `p`.
    pub fn set_compact(&mut self, p: BlockParams) {
        self.version = VERSION_COMPACT;
        self.entry_width = ENTRY_WIDTH_VARIABLE;
        self.entry_encoding = ENCODING_DELTA_HUFFMAN;
        self.blocks = Some(p);
    }

    /// Length of the payload implied by this header (version 1: `entry_count`; version
    /// 2: the [`Layout`]'s), or `None` if it overflows a `u64`.
    pub fn payload_len(&self) -> Option<u64> {
        match &self.blocks {
            None => self.entry_count.checked_mul(u64::from(self.entry_width)),
            Some(p) => Layout::new(u32::from(self.seeds), self.entry_count, p).map(|l| l.len),
        }
    }

    /// Total file length implied by this header, `64 + payload_len()`, or `None` if it
    /// overflows a `u64`.
    pub fn file_len(&self) -> Option<u64> {
        self.payload_len()?.checked_add(HEADER_LEN as u64)
    }

    /// The 64 bytes of this header.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let p = self.blocks.unwrap_or(BlockParams {
            block_shift: 0,
            slot_shift: 0,
            overflow_len: 0,
        });
        encode_wire(Wire {
            lead: Lead {
                magic: MAGIC,
                version: self.version,
                rules: self.rules,
                seeds: self.seeds,
            },
            entry_width: self.entry_width,
            entry_encoding: self.entry_encoding,
            block_shift: p.block_shift,
            slot_shift: p.slot_shift,
            entry_count: self.entry_count,
            checksum: self.checksum,
            overflow_len: p.overflow_len,
            reserved: [0; RESERVED_TAIL],
        })
    }

    /// Decodes and validates a header from the first bytes of a file; errors
    /// name the placeholder path `<header>`. See [`Header::decode_from`].
    pub fn decode(bytes: &[u8]) -> Result<Header, DbError> {
        Header::decode_from(bytes, Path::new("<header>"))
    }

    /// Decodes and validates a header from the first bytes of the file `path`
    /// (`bytes` may be longer than 64; only the first 64 are read).
    ///
    /// Checks, in this order: magic ([`DbError::BadMagic`]; a file shorter
    /// than the magic is a [`DbError::LengthMismatch`]), length of the header,
    /// version ([`DbError::UnsupportedVersion`]), then every field's range
    /// ([`DbError::Corrupted`]).
    pub fn decode_from(bytes: &[u8], path: &Path) -> Result<Header, DbError> {
        let short = || DbError::LengthMismatch {
            path: path.to_path_buf(),
            expected_len: HEADER_LEN as u64,
            actual_len: bytes.len() as u64,
        };
        match bytes.get(..MAGIC.len()) {
            None => return Err(short()),
            Some(m) if m != MAGIC => {
                return Err(DbError::BadMagic {
                    path: path.to_path_buf(),
                })
            }
            Some(_) => {}
        }
        let bytes = bytes.get(..HEADER_LEN).ok_or_else(short)?;
        let corrupted = |what: String| DbError::Corrupted {
            path: path.to_path_buf(),
            what,
        };
        let (wire, _): (Wire, usize) = bincode::decode_from_slice(bytes, CONFIG)
            .map_err(|e| corrupted(format!("header does not decode: {e}")))?;
        let version = wire.lead.version;
        if version != VERSION_BYTE && version != VERSION_COMPACT {
            return Err(DbError::UnsupportedVersion {
                path: path.to_path_buf(),
                found: version,
                supported: SUPPORTED_VERSIONS,
            });
        }
        let Lead {
            rules,
            seeds: seeds_u8,
            ..
        } = wire.lead;
        rules
            .validate()
            .map_err(|e| corrupted(format!("header rules: {e}")))?;
        if u32::from(seeds_u8) > MAX_LEVEL_SEEDS {
            return Err(corrupted(format!(
                "seeds {} above the maximum {MAX_LEVEL_SEEDS}",
                seeds_u8
            )));
        }
        let (width, encoding) = if version == VERSION_BYTE {
            (ENTRY_WIDTH, ENCODING_NET_GAIN_I8)
        } else {
            (ENTRY_WIDTH_VARIABLE, ENCODING_DELTA_HUFFMAN)
        };
        if wire.entry_width != width {
            return Err(corrupted(format!(
                "entry width {} (version {version} has width {width})",
                wire.entry_width
            )));
        }
        if wire.entry_encoding != encoding {
            return Err(corrupted(format!(
                "entry encoding {} (version {version} has encoding {encoding})",
                wire.entry_encoding
            )));
        }
        if wire.reserved != [0; RESERVED_TAIL] {
            return Err(corrupted("reserved header bytes are not zero".to_string()));
        }
        let cells = rules.cells();
        let seeds = u32::from(seeds_u8);
        match checked_level_size(cells, seeds) {
            Some(n) if n == wire.entry_count => {}
            Some(n) => {
                return Err(corrupted(format!(
                    "entry count {} but a level of {cells} cells and {seeds} seeds has {n}",
                    wire.entry_count
                )))
            }
            None => {
                return Err(corrupted(format!(
                    "a level of {cells} cells and {seeds} seeds has more than 2^64 entries"
                )))
            }
        }
        let blocks = if version == VERSION_BYTE {
            if wire.block_shift != 0 || wire.slot_shift != 0 || wire.overflow_len != 0 {
                return Err(corrupted(
                    "reserved header bytes are not zero (bytes 22..24 or 40..48)".to_string(),
                ));
            }
            None
        } else {
            let options = CompactOptions {
                block_shift: wire.block_shift,
                slot_shift: wire.slot_shift,
            };
            options
                .check()
                .map_err(|e| corrupted(format!("header: {e}")))?;
            let blocks = wire.entry_count.div_ceil(1 << wire.block_shift);
            let most = blocks.checked_mul(options.max_continuation());
            if most.is_some_and(|m| wire.overflow_len > m) {
                return Err(corrupted(format!(
                    "{} bytes of continuations for {blocks} blocks of at most {} each",
                    wire.overflow_len,
                    options.max_continuation()
                )));
            }
            Some(BlockParams {
                block_shift: wire.block_shift,
                slot_shift: wire.slot_shift,
                overflow_len: wire.overflow_len,
            })
        };
        Ok(Header {
            version,
            rules,
            seeds: seeds_u8,
            entry_width: wire.entry_width,
            entry_encoding: wire.entry_encoding,
            entry_count: wire.entry_count,
            checksum: wire.checksum,
            blocks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Header {
        let rules = RulesKey {
            pits: 6,
            capture: 1,
            sowing: 0,
            direction: 1,
            opp_store: 0,
            end: 1,
            remaining: 2,
        };
        Header::new(rules, 24, 0x0123_4567_89ab_cdef).unwrap()
    }

    #[test]
    fn encoded_length_is_64() {
        let wire = Wire {
            lead: Lead {
                magic: MAGIC,
                version: 0,
                rules: RulesKey::standard(1),
                seeds: 0,
            },
            entry_width: 0,
            entry_encoding: 0,
            block_shift: 0,
            slot_shift: 0,
            entry_count: 0,
            checksum: 0,
            overflow_len: 0,
            reserved: [0; RESERVED_TAIL],
        };
        let v = bincode::encode_to_vec(wire, CONFIG).unwrap();
        assert_eq!(v.len(), HEADER_LEN);
    }

    #[test]
    fn byte_layout_matches_table() {
        let h = sample();
        let b = h.encode();
        assert_eq!(&b[0..8], b"KALAHDB\0");
        assert_eq!(&b[8..12], &1u32.to_le_bytes());
        assert_eq!(&b[12..19], &[6, 1, 0, 1, 0, 1, 2]);
        assert_eq!(b[19], 24);
        assert_eq!(b[20], 1);
        assert_eq!(b[21], 0);
        assert_eq!(&b[22..24], &[0, 0]);
        assert_eq!(&b[24..32], &h.entry_count.to_le_bytes());
        assert_eq!(h.entry_count, crate::ranking::level_size(12, 24));
        assert_eq!(&b[32..40], &0x0123_4567_89ab_cdefu64.to_le_bytes());
        assert!(b[40..].iter().all(|&x| x == 0));
    }

    #[test]
    fn round_trip() {
        let h = sample();
        let mut bytes = h.encode().to_vec();
        assert_eq!(Header::decode(&bytes).unwrap(), h);
        bytes.extend_from_slice(&[7; 100]);
        assert_eq!(Header::decode(&bytes).unwrap(), h);
        assert_eq!(h.file_len(), Some(64 + h.entry_count));
    }

    #[test]
    fn decode_rejects_bad_fields_in_order() {
        let good = sample().encode();
        let patched = |at: usize, v: u8| {
            let mut b = good;
            b[at] = v;
            Header::decode(&b)
        };
        assert!(matches!(patched(0, b'X'), Err(DbError::BadMagic { .. })));
        assert!(matches!(
            Header::decode(&good[..5]),
            Err(DbError::LengthMismatch { .. })
        ));
        assert!(matches!(
            Header::decode(b"NOTADB\0\0\0"),
            Err(DbError::BadMagic { .. })
        ));
        assert!(matches!(
            Header::decode(&good[..63]),
            Err(DbError::LengthMismatch { .. })
        ));
        match patched(8, 3) {
            Err(DbError::UnsupportedVersion {
                found: 3,
                supported: "versions 1 and 2",
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        // Version 2 with version 1's width and encoding.
        assert!(matches!(patched(8, 2), Err(DbError::Corrupted { .. })));
        // A bad version wins over bad fields.
        let mut b = good;
        b[8] = 9;
        b[12] = 0;
        assert!(matches!(
            Header::decode(&b),
            Err(DbError::UnsupportedVersion { .. })
        ));
        for (at, v) in [
            (12, 0),
            (12, 9),
            (13, 3),
            (18, 3),
            (19, 128),
            (20, 2),
            (21, 1),
            (22, 1),
            (23, 1),
            (40, 1),
            (63, 1),
            (24, 0),
        ] {
            assert!(
                matches!(patched(at, v), Err(DbError::Corrupted { .. })),
                "byte {at} = {v}: {:?}",
                patched(at, v)
            );
        }
        // m = 8, k = 127: the size overflows u64; must be an error, not a panic.
        let mut b = good;
        b[12] = 8;
        b[19] = 127;
        assert!(matches!(Header::decode(&b), Err(DbError::Corrupted { .. })));
    }

    fn compact_sample() -> Header {
        let mut h = sample();
        h.set_compact(BlockParams {
            block_shift: 5,
            slot_shift: 4,
            overflow_len: 1000,
        });
        h
    }

    #[test]
    fn compact_header_layout_and_round_trip() {
        let h = compact_sample();
        let b = h.encode();
        assert_eq!(&b[8..12], &2u32.to_le_bytes());
        assert_eq!((b[20], b[21], b[22], b[23]), (0, 1, 5, 4));
        assert_eq!(&b[40..48], &1000u64.to_le_bytes());
        assert!(b[48..].iter().all(|&x| x == 0));
        assert_eq!(Header::decode(&b).unwrap(), h);
        // 49 symbols in 64 bytes, a slot of 16 bytes a block of 32, then 1000 bytes.
        let blocks = h.entry_count.div_ceil(32);
        assert_eq!(h.file_len(), Some(64 + 64 + 16 * blocks + 1000));
    }

    #[test]
    fn compact_header_fields_are_checked() {
        let good = compact_sample().encode();
        let patched = |at: usize, bytes: &[u8]| {
            let mut b = good;
            b[at..at + bytes.len()].copy_from_slice(bytes);
            Header::decode(&b)
        };
        let blocks = compact_sample().entry_count.div_ceil(32);
        for (at, bytes) in [
            (20, vec![1]),
            (21, vec![0]),
            (22, vec![2]),
            (22, vec![7]),
            (23, vec![3]),
            (23, vec![7]),
            (40, (37 * blocks + 1).to_le_bytes().to_vec()),
            (40, u64::MAX.to_le_bytes().to_vec()),
            (48, vec![1]),
        ] {
            assert!(
                matches!(patched(at, &bytes), Err(DbError::Corrupted { .. })),
                "bytes {at}.. = {bytes:?}: {:?}",
                patched(at, &bytes)
            );
        }
        // The extreme shifts allowed, and the most continuation bytes.
        let h = patched(22, &[6, 6]).unwrap();
        assert_eq!(
            h.blocks.map(|p| (p.block_shift, p.slot_shift)),
            Some((6, 6))
        );
        assert!(patched(22, &[3, 4]).is_ok());
        assert!(patched(40, &(37 * blocks).to_le_bytes()).is_ok());
    }

    #[test]
    fn new_rejects_bad_parameters() {
        assert!(Header::new(RulesKey::standard(0), 1, 0).is_err());
        assert!(matches!(
            Header::new(RulesKey::standard(6), 128, 0),
            Err(DbError::TooManySeeds { .. })
        ));
        assert!(matches!(
            Header::new(RulesKey::standard(8), 127, 0),
            Err(DbError::SizeOverflow { .. })
        ));
    }
}
