//! The 64-byte header at the start of every level file.
//!
//! Why a fixed 64 bytes: a reader can validate a file by reading one small
//! block before mapping it, and the payload starts at a fixed, cache-line
//! aligned offset, so entry `i` is at byte `64 + i` in every file.
//!
//! Layout (serialised with bincode 2, `standard()` +
//! `with_fixed_int_encoding()` + `with_little_endian()`: every field at a fixed
//! offset, **all integers little-endian**, no length prefixes):
//!
//! | offset | size | field            | meaning                                                        |
//! |-------:|-----:|------------------|----------------------------------------------------------------|
//! |      0 |    8 | `magic`          | `KALAHDB\0` (`4b 41 4c 41 48 44 42 00`)                         |
//! |      8 |    4 | `version`        | u32, format version, [`FORMAT_VERSION`] = 1                     |
//! |     12 |    1 | `rules.pits`     | u8, pits per side m, 1..=8                                      |
//! |     13 |    1 | `rules.capture`  | u8, 0 standard, 1 empty, 2 none                                 |
//! |     14 |    1 | `rules.sowing`   | u8, 0 single, 1 relay                                           |
//! |     15 |    1 | `rules.direction`| u8, 0 ccw, 1 cw                                                 |
//! |     16 |    1 | `rules.opp_store`| u8, 0 skip, 1 sow                                               |
//! |     17 |    1 | `rules.end`      | u8, 0 either, 1 mover                                           |
//! |     18 |    1 | `rules.remaining`| u8, 0 owner, 1 emptier, 2 discard                               |
//! |     19 |    1 | `seeds`          | u8, seeds on the board k, 0..=127                               |
//! |     20 |    1 | `entry_width`    | u8, bytes per entry, 1                                          |
//! |     21 |    1 | `entry_encoding` | u8, 0 = i8 two's complement future net gain of the side to move |
//! |     22 |    2 | reserved         | zero (aligns the next field to 8 bytes)                         |
//! |     24 |    8 | `entry_count`    | u64, number of entries, `C(k + 2m - 1, 2m - 1)`                 |
//! |     32 |    8 | `checksum`       | u64, XXH3-64 (seed 0) of the payload (bytes 64..end)            |
//! |     40 |   24 | reserved         | zero                                                            |
//!
//! Invariant of a decoded [`Header`]: magic and version are right, the rules
//! are valid, `seeds <= 127`, width 1, encoding 0, reserved bytes zero and
//! `entry_count == level_size(2 * pits, seeds)`.

use std::path::Path;

use bincode::config::{Configuration, Fixint, LittleEndian, NoLimit};

use crate::error::DbError;
use crate::index::checked_level_size;
use crate::rules::RulesKey;
use crate::value::{ENCODING_NET_GAIN_I8, ENTRY_WIDTH, MAX_LEVEL_SEEDS};

/// Length of the header in bytes; the payload starts here.
pub const HEADER_LEN: usize = 64;

/// The 8 magic bytes every level file starts with.
pub const MAGIC: [u8; 8] = *b"KALAHDB\0";

/// Version of the layout this crate writes and reads. Any change of the layout
/// or of the meaning of a field bumps it.
pub const FORMAT_VERSION: u32 = 1;

/// Bytes of the header's tail that are reserved (zero).
const RESERVED_TAIL: usize = 24;

// The fields of `Wire` add up to exactly HEADER_LEN bytes (and the unit test
// `encoded_length_is_64` checks bincode agrees).
const _: () = assert!(8 + 4 + 7 + 1 + 1 + 1 + 2 + 8 + 8 + RESERVED_TAIL == HEADER_LEN);

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
                expected,
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
    reserved0: [u8; 2],
    entry_count: u64,
    checksum: u64,
    reserved: [u8; RESERVED_TAIL],
}

/// The meaningful fields of a level file's header (magic and reserved bytes
/// are implied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version ([`FORMAT_VERSION`] in every header this crate decodes).
    pub version: u32,
    /// Rules the level was solved under.
    pub rules: RulesKey,
    /// Seeds on the board, k.
    pub seeds: u8,
    /// Bytes per entry (1).
    pub entry_width: u8,
    /// Entry encoding code (0: `i8` net gain of the side to move).
    pub entry_encoding: u8,
    /// Entries in the payload, `level_size(2 * pits, seeds)`.
    pub entry_count: u64,
    /// XXH3-64 (seed 0) of the payload.
    pub checksum: u64,
}

impl Header {
    /// The header of the level (`rules`, `seeds`) whose payload hashes to
    /// `checksum`, with the current version, width and encoding.
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
            version: FORMAT_VERSION,
            rules,
            seeds: seeds_u8,
            entry_width: ENTRY_WIDTH,
            entry_encoding: ENCODING_NET_GAIN_I8,
            entry_count,
            checksum,
        })
    }

    /// Total file length implied by this header, `64 + entry_count * entry_width`,
    /// or `None` if it overflows a `u64`.
    pub fn file_len(&self) -> Option<u64> {
        self.entry_count
            .checked_mul(u64::from(self.entry_width))?
            .checked_add(HEADER_LEN as u64)
    }

    /// The 64 bytes of this header.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        encode_wire(Wire {
            lead: Lead {
                magic: MAGIC,
                version: self.version,
                rules: self.rules,
                seeds: self.seeds,
            },
            entry_width: self.entry_width,
            entry_encoding: self.entry_encoding,
            reserved0: [0; 2],
            entry_count: self.entry_count,
            checksum: self.checksum,
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
        wire.lead.check_version(FORMAT_VERSION, path)?;
        let Lead {
            version,
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
        if wire.entry_width != ENTRY_WIDTH {
            return Err(corrupted(format!(
                "entry width {} (version {FORMAT_VERSION} has width {ENTRY_WIDTH})",
                wire.entry_width
            )));
        }
        if wire.entry_encoding != ENCODING_NET_GAIN_I8 {
            return Err(corrupted(format!(
                "unknown entry encoding {}",
                wire.entry_encoding
            )));
        }
        if wire.reserved0 != [0; 2] || wire.reserved != [0; RESERVED_TAIL] {
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
        Ok(Header {
            version,
            rules,
            seeds: seeds_u8,
            entry_width: wire.entry_width,
            entry_encoding: wire.entry_encoding,
            entry_count: wire.entry_count,
            checksum: wire.checksum,
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
            reserved0: [0; 2],
            entry_count: 0,
            checksum: 0,
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
        assert_eq!(h.entry_count, crate::index::level_size(12, 24));
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
        match patched(8, 2) {
            Err(DbError::UnsupportedVersion {
                found: 2,
                expected: 1,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
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
