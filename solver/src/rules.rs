//! The rule builder: one validated [`Rules`] value that every other module reads.
//!
//! The switches come from the rules texts in `shared/seeds/`; where those texts disagree
//! (the end of the game, capturing into an empty pit) the project offers both readings.
//! Defaults are the rules of the published solves: standard capture, counter-clockwise
//! single sowing, the opponent's store skipped, the game ends as soon as either row is
//! empty and each player takes the seeds on their own side.

use std::fmt;

/// The most pits a side the engine accepts. The packed board ([`crate::board::Board`])
/// has room for 8 a side; raising this constant to 7 or 8 is the only change needed.
pub const MAX_PITS: usize = 6;

/// The most seeds a pit at the start (the sites play 3 to 6).
pub const MAX_SEEDS_PER_PIT: u8 = 12;

/// When the last seed of a sowing lands in an empty pit of the mover's row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capture {
    /// Capture the last seed and the opposite pit, if the opposite pit holds seeds.
    Standard,
    /// As standard, and also when the opposite pit is empty (the lone seed goes home).
    Empty,
    /// No captures.
    None,
}

/// How a sowing continues after its last seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sowing {
    /// One lap of sowing; the turn ends where the last seed lands.
    Single,
    /// "Seed on": a last seed that lands in an occupied pit (either side) lifts that pit
    /// and sowing goes on; the turn ends in an empty pit or in a store.
    Relay,
}

/// The direction of sowing, seen from above with South (A) at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A1..Am, own store, B1..Bm: every seed sown in the own row moves towards the own store.
    Ccw,
    /// Am..A1, opponent's store, B(m)..B1, own store: the own store comes only after the
    /// opponent's row, so seeds can circulate and positions can repeat.
    Cw,
}

/// Whether the mover drops seeds into the opponent's store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OppStore {
    /// The opponent's store is stepped over and is not a step of the sowing.
    Skip,
    /// The opponent's store receives a seed like any pit.
    Sow,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndRule {
    /// As soon as either row is empty, after any move (free moves included; no free move
    /// is granted then).
    Either,
    /// Only when the player due to move has an empty row.
    Mover,
}

/// Who gets the seeds left on the board when the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Remaining {
    /// Each player takes the seeds on their own side.
    Owner,
    /// All go to the player whose row is empty.
    Emptier,
    /// They count for nobody.
    Discard,
}

/// A complete, validated rule set for Kalah(m, n).
///
/// Invariant: `1 <= pits <= MAX_PITS` and `1 <= seeds <= MAX_SEEDS_PER_PIT`; only
/// [`RulesBuilder::build`] makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pits: usize,
    seeds: u8,
    pub capture: Capture,
    pub sowing: Sowing,
    pub direction: Direction,
    pub opp_store: OppStore,
    pub end: EndRule,
    pub remaining: Remaining,
    pub pie: bool,
}

/// Why a rule set was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("pits a side must be 1 to {max}, got {got}")]
    Pits { got: usize, max: usize },
    #[error("seeds a pit must be 1 to {max}, got {got}")]
    Seeds { got: usize, max: u8 },
    #[error("unknown value '{value}' for {switch}; expected one of: {expected}")]
    UnknownValue {
        switch: &'static str,
        value: String,
        expected: &'static str,
    },
}

impl Rules {
    /// Kalah(pits, seeds) with the default switches.
    pub fn kalah(pits: usize, seeds: usize) -> Result<Rules, RulesError> {
        RulesBuilder::new(pits, seeds).build()
    }

    /// Pits a side (m).
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// Seeds a pit at the start (n).
    pub fn seeds(&self) -> u8 {
        self.seeds
    }

    /// Seeds in the whole game, 2·m·n.
    pub fn total_seeds(&self) -> u32 {
        2 * self.pits as u32 * self.seeds as u32
    }

    /// Whether a position can repeat. Counter-clockwise, every move that keeps all seeds on
    /// the board carries seeds only towards the mover's store (see `sow`), so play is
    /// acyclic; clockwise it is not.
    pub fn can_cycle(&self) -> bool {
        self.direction == Direction::Cw
    }

    /// The key that identifies these rules in an endgame database. The pie rule and the
    /// seeds a pit do not change the value of a board, so they are not part of it. The
    /// codes are `db_format`'s ([`db_format::rule_codes`]), found by each switch's spelling.
    pub fn db_key(&self) -> db_format::RulesKey {
        use db_format::rule_codes as codes;
        db_format::RulesKey {
            pits: self.pits as u8,
            capture: code(self.capture, codes::CAPTURE),
            sowing: code(self.sowing, codes::SOWING),
            direction: code(self.direction, codes::DIRECTION),
            opp_store: code(self.opp_store, codes::OPP_STORE),
            end: code(self.end, codes::END),
            remaining: code(self.remaining, codes::REMAINING),
        }
    }

    /// The rules of a database key (the seeds a pit set to 1: a key does not hold them).
    pub fn from_db_key(key: &db_format::RulesKey) -> Result<Rules, RulesError> {
        use db_format::rule_codes as codes;
        let mut b = RulesBuilder::new(usize::from(key.pits), 1);
        b.capture = Some(decode(key.capture, codes::CAPTURE)?);
        b.sowing = decode(key.sowing, codes::SOWING)?;
        b.direction = decode(key.direction, codes::DIRECTION)?;
        b.opp_store = decode(key.opp_store, codes::OPP_STORE)?;
        b.end = decode(key.end, codes::END)?;
        b.remaining = decode(key.remaining, codes::REMAINING)?;
        b.build()
    }
}

/// The database code of a switch's value: the index of its spelling in `table`.
fn code<S: Switch + PartialEq>(value: S, table: &[&str]) -> u8 {
    let name = value.name();
    // Invariant: db_format's tables spell every switch value (test
    // `every_switch_value_has_a_database_code`).
    table
        .iter()
        .position(|n| *n == name)
        .expect("db_format has a code for every switch value") as u8
}

/// The switch value of database code `code` of `table`.
fn decode<S: Switch>(code: u8, table: &[&str]) -> Result<S, RulesError> {
    let unknown = || RulesError::UnknownValue {
        switch: S::SWITCH,
        value: format!("code {code}"),
        expected: if table.len() == 3 { "0, 1, 2" } else { "0, 1" },
    };
    let name = table.get(usize::from(code)).ok_or_else(unknown)?;
    S::parse(name).map_err(|_| unknown())
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Kalah({},{}) capture={} sowing={} direction={} opp-store={} end={} remaining={}{}",
            self.pits,
            self.seeds,
            self.capture.name(),
            self.sowing.name(),
            self.direction.name(),
            self.opp_store.name(),
            self.end.name(),
            self.remaining.name(),
            if self.pie { " pie" } else { "" }
        )
    }
}

/// Builds a [`Rules`]; every switch has the default of the published solves.
///
/// `capture` is an `Option` because its default depends on the sowing: relay sowing
/// ("seed on") has no captures unless a capture rule is asked for explicitly.
#[derive(Clone, Debug)]
pub struct RulesBuilder {
    pub pits: usize,
    pub seeds: usize,
    pub capture: Option<Capture>,
    pub sowing: Sowing,
    pub direction: Direction,
    pub opp_store: OppStore,
    pub end: EndRule,
    pub remaining: Remaining,
    pub pie: bool,
}

impl RulesBuilder {
    pub fn new(pits: usize, seeds: usize) -> RulesBuilder {
        RulesBuilder {
            pits,
            seeds,
            capture: None,
            sowing: Sowing::Single,
            direction: Direction::Ccw,
            opp_store: OppStore::Skip,
            end: EndRule::Either,
            remaining: Remaining::Owner,
            pie: false,
        }
    }

    pub fn build(&self) -> Result<Rules, RulesError> {
        if !(1..=MAX_PITS).contains(&self.pits) {
            return Err(RulesError::Pits {
                got: self.pits,
                max: MAX_PITS,
            });
        }
        if !(1..=MAX_SEEDS_PER_PIT as usize).contains(&self.seeds) {
            return Err(RulesError::Seeds {
                got: self.seeds,
                max: MAX_SEEDS_PER_PIT,
            });
        }
        let capture = self.capture.unwrap_or(match self.sowing {
            Sowing::Single => Capture::Standard,
            Sowing::Relay => Capture::None,
        });
        Ok(Rules {
            pits: self.pits,
            seeds: self.seeds as u8,
            capture,
            sowing: self.sowing,
            direction: self.direction,
            opp_store: self.opp_store,
            end: self.end,
            remaining: self.remaining,
            pie: self.pie,
        })
    }
}

impl From<Rules> for RulesBuilder {
    fn from(r: Rules) -> RulesBuilder {
        RulesBuilder {
            pits: r.pits,
            seeds: r.seeds as usize,
            capture: Some(r.capture),
            sowing: r.sowing,
            direction: r.direction,
            opp_store: r.opp_store,
            end: r.end,
            remaining: r.remaining,
            pie: r.pie,
        }
    }
}

/// A switch value with a CLI spelling, parsed and printed the same way.
pub trait Switch: Sized + Copy + 'static {
    /// The switch's name on the command line, without the dashes.
    const SWITCH: &'static str;
    /// Every value with its spelling, the default first.
    const VALUES: &'static [(&'static str, Self)];

    fn name(self) -> &'static str
    where
        Self: PartialEq,
    {
        Self::VALUES
            .iter()
            .find(|(_, v)| *v == self)
            .map(|(n, _)| *n)
            // Invariant: VALUES lists every variant of each enum below.
            .expect("every switch value has a spelling")
    }

    fn parse(s: &str) -> Result<Self, RulesError> {
        Self::VALUES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s))
            .map(|(_, v)| *v)
            .ok_or_else(|| RulesError::UnknownValue {
                switch: Self::SWITCH,
                value: s.to_string(),
                expected: Self::EXPECTED,
            })
    }

    /// The spellings joined for error messages.
    const EXPECTED: &'static str;
}

macro_rules! switch {
    ($ty:ty, $switch:literal, $expected:literal, [$($name:literal => $val:expr),+ $(,)?]) => {
        impl Switch for $ty {
            const SWITCH: &'static str = $switch;
            const VALUES: &'static [(&'static str, Self)] = &[$(($name, $val)),+];
            const EXPECTED: &'static str = $expected;
        }
        impl std::str::FromStr for $ty {
            type Err = RulesError;
            fn from_str(s: &str) -> Result<Self, RulesError> {
                <$ty as Switch>::parse(s)
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

switch!(Capture, "capture", "standard, empty, none", [
    "standard" => Capture::Standard, "empty" => Capture::Empty, "none" => Capture::None]);
switch!(Sowing, "sowing", "single, relay", [
    "single" => Sowing::Single, "relay" => Sowing::Relay]);
switch!(Direction, "direction", "ccw, cw", [
    "ccw" => Direction::Ccw, "cw" => Direction::Cw]);
switch!(OppStore, "opp-store", "skip, sow", [
    "skip" => OppStore::Skip, "sow" => OppStore::Sow]);
switch!(EndRule, "end", "either, mover", [
    "either" => EndRule::Either, "mover" => EndRule::Mover]);
switch!(Remaining, "remaining", "owner, emptier, discard", [
    "owner" => Remaining::Owner, "emptier" => Remaining::Emptier, "discard" => Remaining::Discard]);

#[cfg(test)]
mod tests {
    #[test]
    fn every_switch_value_has_a_database_code() {
        use db_format::rule_codes as codes;
        fn each<S: super::Switch + PartialEq + std::fmt::Debug>(table: &[&str]) {
            assert_eq!(S::VALUES.len(), table.len());
            for &(_, v) in S::VALUES {
                let c = super::code(v, table);
                assert_eq!(super::decode::<S>(c, table).unwrap(), v);
            }
            assert!(super::decode::<S>(table.len() as u8, table).is_err());
        }
        each::<super::Capture>(codes::CAPTURE);
        each::<super::Sowing>(codes::SOWING);
        each::<super::Direction>(codes::DIRECTION);
        each::<super::OppStore>(codes::OPP_STORE);
        each::<super::EndRule>(codes::END);
        each::<super::Remaining>(codes::REMAINING);
    }

    use super::*;

    #[test]
    fn defaults_are_the_published_rules() {
        let r = Rules::kalah(6, 4).unwrap();
        assert_eq!(r.capture, Capture::Standard);
        assert_eq!(r.sowing, Sowing::Single);
        assert_eq!(r.direction, Direction::Ccw);
        assert_eq!(r.opp_store, OppStore::Skip);
        assert_eq!(r.end, EndRule::Either);
        assert_eq!(r.remaining, Remaining::Owner);
        assert!(!r.pie);
        assert_eq!(r.total_seeds(), 48);
    }

    #[test]
    fn board_size_is_validated() {
        assert_eq!(Rules::kalah(0, 4), Err(RulesError::Pits { got: 0, max: 6 }));
        assert!(Rules::kalah(7, 4).is_err());
        assert!(Rules::kalah(6, 0).is_err());
        assert!(Rules::kalah(6, 13).is_err());
        assert!(Rules::kalah(1, 1).is_ok());
        assert!(Rules::kalah(6, 12).is_ok());
        let msg = Rules::kalah(6, 13).unwrap_err().to_string();
        assert!(msg.contains("13"), "{msg}");
    }

    #[test]
    fn relay_sowing_has_no_capture_unless_asked() {
        let mut b = RulesBuilder::new(6, 4);
        b.sowing = Sowing::Relay;
        assert_eq!(b.build().unwrap().capture, Capture::None);
        b.capture = Some(Capture::Empty);
        assert_eq!(b.build().unwrap().capture, Capture::Empty);
    }

    #[test]
    fn switches_parse_and_print() {
        assert_eq!("empty".parse::<Capture>(), Ok(Capture::Empty));
        assert_eq!("CW".parse::<Direction>(), Ok(Direction::Cw));
        let e = "sideways".parse::<Direction>().unwrap_err().to_string();
        assert!(e.contains("sideways") && e.contains("ccw, cw"), "{e}");
        assert_eq!(Remaining::Emptier.to_string(), "emptier");
        for (n, v) in EndRule::VALUES {
            assert_eq!(&v.to_string(), n);
        }
    }
}
