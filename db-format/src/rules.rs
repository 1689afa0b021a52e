//! The rule variant a database was solved under.
//!
//! Why a key and not a name: Kalah has many house variants, and a database is
//! only valid for the exact variant it was solved under. The key stores each
//! rule choice as a small numeric code so that it fits in 7 header bytes, and
//! readers compare all seven before trusting a file.
//!
//! Invariant of a valid key (checked by [`RulesKey::validate`]): `pits` is in
//! `1..=8` and every code is one of those listed on its field.

use std::fmt;

/// Largest number of pits per side: 2 × 8 = 16 cells is the most the ranking supports.
pub const MAX_PITS: u8 = 8;

// The rule codes, written once: each table lists a field's values by code (the code of
// a value is its index), spelt as the rules' switches are (`kalah --capture empty`), so
// that the solver maps its rules to codes by name.

/// Names of the codes of `capture`, indexed by code.
pub const CAPTURE: &[&str] = &["standard", "empty", "none"];
/// Names of the codes of `sowing`, indexed by code.
pub const SOWING: &[&str] = &["single", "relay"];
/// Names of the codes of `direction`, indexed by code.
pub const DIRECTION: &[&str] = &["ccw", "cw"];
/// Names of the codes of `opp_store`, indexed by code.
pub const OPP_STORE: &[&str] = &["skip", "sow"];
/// Names of the codes of `end`, indexed by code.
pub const END: &[&str] = &["either", "mover"];
/// Names of the codes of `remaining`, indexed by code.
pub const REMAINING: &[&str] = &["owner", "emptier", "discard"];

/// The rule variant, as stored in header bytes 12..19 (one byte per field, in
/// field order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode)]
pub struct RulesKey {
    /// Pits per side, `1..=8` (the board has `2 * pits` cells plus two stores).
    pub pits: u8,
    /// Last seed in an empty pit of the mover's row: 0 = standard (capture it and
    /// the opposite pit, if the opposite pit holds seeds), 1 = empty (also when
    /// the opposite pit is empty: the lone seed goes home), 2 = none (no captures).
    pub capture: u8,
    /// Sowing: 0 = single lap, 1 = relay ("seed on": a last seed landing in an
    /// occupied pit lifts that pit and sowing goes on).
    pub sowing: u8,
    /// Direction of sowing: 0 = counter-clockwise (A1..Am, own store, B1..Bm),
    /// 1 = clockwise (Am..A1, opponent's store, Bm..B1, own store).
    pub direction: u8,
    /// The opponent's store when sowing: 0 = stepped over, 1 = sown like a pit.
    pub opp_store: u8,
    /// When the game ends: 0 = as soon as either row is empty, 1 = only when the
    /// player due to move has an empty row.
    pub end: u8,
    /// Seeds left on the board at the end: 0 = each player takes those on their
    /// own side, 1 = all go to the player whose row is empty, 2 = they count for nobody.
    pub remaining: u8,
}

/// A rules key with a pit count or rule code outside the defined range (as
/// [`crate::DbError::InvalidRules`], which it becomes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rules: {what}")]
pub struct InvalidRules {
    /// Which field is out of range.
    pub what: String,
}

impl RulesKey {
    /// The standard rules (every code 0) with `pits` pits per side.
    pub const fn standard(pits: u8) -> RulesKey {
        RulesKey {
            pits,
            capture: 0,
            sowing: 0,
            direction: 0,
            opp_store: 0,
            end: 0,
            remaining: 0,
        }
    }

    /// Checks that `pits` is in `1..=8` and every code is defined.
    pub fn validate(&self) -> Result<(), InvalidRules> {
        if !(1..=MAX_PITS).contains(&self.pits) {
            return Err(InvalidRules {
                what: format!("pits = {} outside 1..={MAX_PITS}", self.pits),
            });
        }
        for (field, names, code) in self.fields() {
            if usize::from(code) >= names.len() {
                return Err(InvalidRules {
                    what: format!(
                        "{field} code {code} undefined (defined: 0..={})",
                        names.len() - 1
                    ),
                });
            }
        }
        Ok(())
    }

    /// Cells on the board, `2 * pits`: the length of a position vector.
    pub fn cells(&self) -> usize {
        2 * usize::from(self.pits)
    }

    /// Short form used in file names, e.g. `m6-standard-single-ccw-skip-either-owner`.
    /// An undefined code appears as `x<code>` (e.g. `x7`) so the slug never fails.
    pub fn slug(&self) -> String {
        let mut s = format!("m{}", self.pits);
        for (_, names, code) in self.fields() {
            s.push('-');
            s.push_str(&code_name(names, code));
        }
        s
    }

    /// Parses a [`slug`](RulesKey::slug) back into a valid key.
    pub fn from_slug(slug: &str) -> Result<RulesKey, InvalidRules> {
        let bad = || InvalidRules {
            what: format!("cannot parse rules slug {slug:?}"),
        };
        let mut parts = slug.split('-');
        let pits = parts
            .next()
            .and_then(|p| p.strip_prefix('m'))
            .and_then(|p| p.parse::<u8>().ok())
            .ok_or_else(bad)?;
        let mut codes = [0u8; 6];
        for (slot, names) in codes.iter_mut().zip(ALL_NAMES) {
            let part = parts.next().ok_or_else(bad)?;
            let code = names.iter().position(|n| *n == part).ok_or_else(bad)?;
            *slot = u8::try_from(code).map_err(|_| bad())?;
        }
        if parts.next().is_some() {
            return Err(bad());
        }
        let [capture, sowing, direction, opp_store, end, remaining] = codes;
        let key = RulesKey {
            pits,
            capture,
            sowing,
            direction,
            opp_store,
            end,
            remaining,
        };
        key.validate()?;
        Ok(key)
    }

    /// The six coded fields with their display names and code tables, in header order.
    fn fields(&self) -> [(&'static str, &'static [&'static str], u8); 6] {
        [
            ("capture", CAPTURE, self.capture),
            ("sowing", SOWING, self.sowing),
            ("direction", DIRECTION, self.direction),
            ("opp-store", OPP_STORE, self.opp_store),
            ("end", END, self.end),
            ("remaining", REMAINING, self.remaining),
        ]
    }
}

/// Code tables of the six coded fields, in header order.
const ALL_NAMES: [&[&str]; 6] = [CAPTURE, SOWING, DIRECTION, OPP_STORE, END, REMAINING];

/// Name of `code` in `names`, or `x<code>` for an undefined code.
fn code_name(names: &[&str], code: u8) -> String {
    names
        .get(usize::from(code))
        .map_or_else(|| format!("x{code}"), |n| (*n).to_string())
}

impl fmt::Display for RulesKey {
    /// E.g. `m=6 capture=standard sowing=single direction=ccw opp-store=skip end=either remaining=owner`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m={}", self.pits)?;
        for (field, names, code) in self.fields() {
            write!(f, " {field}={}", code_name(names, code))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_slug() {
        let r = RulesKey::standard(6);
        assert_eq!(
            r.to_string(),
            "m=6 capture=standard sowing=single direction=ccw opp-store=skip end=either remaining=owner"
        );
        assert_eq!(r.slug(), "m6-standard-single-ccw-skip-either-owner");
        let r2 = RulesKey {
            pits: 4,
            capture: 2,
            sowing: 1,
            direction: 1,
            opp_store: 1,
            end: 1,
            remaining: 2,
        };
        assert_eq!(r2.slug(), "m4-none-relay-cw-sow-mover-discard");
        assert_eq!(RulesKey::from_slug(&r2.slug()).unwrap(), r2);
        assert_eq!(RulesKey::from_slug(&r.slug()).unwrap(), r);
        assert!(RulesKey::from_slug("m6-standard").is_err());
        assert!(RulesKey::from_slug("m9-standard-single-ccw-skip-either-owner").is_err());
        assert!(RulesKey::from_slug("m6-standard-single-ccw-skip-either-owner-x").is_err());
    }

    #[test]
    fn validate_ranges() {
        assert!(RulesKey::standard(1).validate().is_ok());
        assert!(RulesKey::standard(8).validate().is_ok());
        assert!(RulesKey::standard(0).validate().is_err());
        assert!(RulesKey::standard(9).validate().is_err());
        let mut r = RulesKey::standard(6);
        r.remaining = 2;
        assert!(r.validate().is_ok());
        r.remaining = 3;
        let e = r.validate().unwrap_err();
        assert!(e.to_string().contains("remaining"), "{e}");
        assert!(r.to_string().contains("remaining=x3"));
        let mut r = RulesKey::standard(6);
        r.end = 2;
        assert!(r.validate().is_err());
    }
}
