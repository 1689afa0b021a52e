//! The query string of an API request, checked the way the command line is: the rule
//! switches and the position go through the same clap arguments ([`RulesArgs`],
//! [`PositionArg`]) and [`resolve`], so a bad value gets the CLI's message.

use clap::Parser;
use solver::{Position, Rules};

use crate::args::{resolve, PositionArg, RulesArgs};

/// The rule switches a query may set, as on the command line (without the dashes).
pub const RULE_KEYS: [&str; 8] = [
    "pits",
    "seeds",
    "capture",
    "sowing",
    "direction",
    "opp-store",
    "end",
    "remaining",
];

/// The arguments of one request, parsed as the CLI parses them.
#[derive(Parser, Debug)]
#[command(name = "kalah serve", no_binary_name = true, disable_help_flag = true)]
struct QueryArgs {
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    position: PositionArg,
}

/// A query string as `key=value` pairs, in order.
pub type Pairs = Vec<(String, String)>;

/// The pairs of a raw query string (none for an absent one).
pub fn pairs(query: Option<&str>) -> Pairs {
    form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Refuse any key not in `allowed` and any key given twice.
pub fn check_keys(pairs: &Pairs, allowed: &[&str]) -> Result<(), String> {
    for (i, (k, _)) in pairs.iter().enumerate() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!(
                "unknown parameter '{k}'; expected one of: {}",
                allowed.join(", ")
            ));
        }
        if pairs[..i].iter().any(|(j, _)| j == k) {
            return Err(format!("parameter '{k}' is given twice"));
        }
    }
    Ok(())
}

/// The value of `key`, if given.
pub fn get<'a>(pairs: &'a Pairs, key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The rules and position of a query: `position` and the rule switches of [`RULE_KEYS`]
/// and `pie`, each falling back to the server's own command line (`defaults`, flags as
/// `kalah serve` was given them). The server's `--pits` and `--seeds` do not apply to a
/// query that gives a position: they name the game the explorer starts with, and a
/// position names its own, as on the command line without `--pits` and `--seeds` (its
/// size gives the pits, the seeds it holds the game, see [`resolve`]). So a link to a
/// position of Kalah(4,3) opens Kalah(4,3) on a server started for Kalah(6,4).
pub fn rules_and_position(
    pairs: &Pairs,
    defaults: &[(String, String)],
) -> Result<(Rules, Position), String> {
    let mut argv: Vec<String> = Vec::new();
    let given = |k: &str| get(pairs, k).is_some();
    for (k, v) in defaults {
        let shadowed =
            given(k) || ((k == "pits" || k == "seeds") && given("position")) || k == "pie";
        if !shadowed {
            argv.push(format!("--{k}={v}"));
        }
    }
    for (k, v) in pairs {
        if k == "pie" {
            continue;
        }
        if RULE_KEYS.contains(&k.as_str()) || k == "position" {
            argv.push(format!("--{k}={v}"));
        }
    }
    let pie = match get(pairs, "pie") {
        None => defaults.iter().any(|(k, _)| k == "pie"),
        Some(v) => parse_flag("pie", v)?,
    };
    if pie {
        argv.push("--pie".to_string());
    }
    let args = QueryArgs::try_parse_from(&argv).map_err(|e| clap_message(&e))?;
    resolve(&args.rules, &args.position).map_err(|e| e.to_string())
}

/// A yes/no parameter: `1`, `true`, `yes` or `0`, `false`, `no`.
pub fn parse_flag(key: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(format!(
            "invalid value '{v}' for '{key}': expected true or false"
        )),
    }
}

/// The flags of the server's rule switches, for [`rules_and_position`].
pub fn default_flags(rules: &RulesArgs) -> Vec<(String, String)> {
    use solver::rules::Switch;
    let mut out = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            out.push((k.to_string(), v));
        }
    };
    push("pits", rules.pits.map(|v| v.to_string()));
    push("seeds", rules.seeds.map(|v| v.to_string()));
    push("capture", rules.capture.map(|v| v.name().to_string()));
    push("sowing", rules.sowing.map(|v| v.name().to_string()));
    push("direction", rules.direction.map(|v| v.name().to_string()));
    push("opp-store", rules.opp_store.map(|v| v.name().to_string()));
    push("end", rules.end.map(|v| v.name().to_string()));
    push("remaining", rules.remaining.map(|v| v.name().to_string()));
    push("pie", rules.pie.then(|| "true".to_string()));
    out
}

/// The one line of a clap error that says what is wrong, without "error: " and the usage.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or("invalid parameters");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    // clap names the flags; the query names the parameters.
    line.replace("'--", "'").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<(Rules, Position), String> {
        rules_and_position(&pairs(Some(q)), &[])
    }

    #[test]
    fn queries_give_rules_and_positions() {
        let (r, p) = parse("").unwrap();
        assert_eq!(r, Rules::kalah(6, 4).unwrap());
        assert_eq!(p, Position::start(&r));
        let (r, p) = parse("position=1,0,2/0/0,4,0/0/B&capture=empty").unwrap();
        assert_eq!(r.pits(), 3);
        assert_eq!(r.capture, solver::Capture::Empty);
        assert_eq!(p.to_string(), "1,0,2/0/0,4,0/0/B");
        let (r, _) = parse("pie=1").unwrap();
        assert!(r.pie);
    }

    #[test]
    fn bad_values_get_the_cli_messages() {
        let e = parse("capture=sometimes").unwrap_err();
        assert!(e.contains("sometimes") && e.contains("standard"), "{e}");
        let e = parse("pits=9").unwrap_err();
        assert!(e.contains("pits a side must be 1 to 6"), "{e}");
        let e = parse("position=1,2/0/3/0/A").unwrap_err();
        assert!(e.contains("position"), "{e}");
        let e = parse("position=1,2,3/0/3,4,5/0/A&pits=4").unwrap_err();
        assert!(e.contains("3 pits a side but the rules say 4"), "{e}");
        assert!(parse("pie=maybe").is_err());
        let e = check_keys(&pairs(Some("pits=3&colour=red")), &["pits"]).unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = check_keys(&pairs(Some("pits=3&pits=4")), &["pits"]).unwrap_err();
        assert!(e.contains("twice"), "{e}");
    }

    #[test]
    fn the_server_flags_are_defaults() {
        let d = vec![
            ("pits".to_string(), "4".to_string()),
            ("capture".to_string(), "empty".to_string()),
        ];
        let (r, _) = rules_and_position(&pairs(Some("")), &d).unwrap();
        assert_eq!((r.pits(), r.capture), (4, solver::Capture::Empty));
        let (r, _) = rules_and_position(&pairs(Some("capture=none")), &d).unwrap();
        assert_eq!((r.pits(), r.capture), (4, solver::Capture::None));
        let (r, _) = rules_and_position(&pairs(Some("position=1,0,2/0/0,4,0/0/B")), &d).unwrap();
        assert_eq!(r.pits(), 3);
    }

    #[test]
    fn a_position_names_its_game_over_the_server_flags() {
        let d = vec![
            ("pits".to_string(), "6".to_string()),
            ("seeds".to_string(), "4".to_string()),
        ];
        let q = pairs(Some("position=3,3,3,3/0/3,3,3,3/0/A"));
        let (r, p) = rules_and_position(&q, &d).unwrap();
        assert_eq!((r.pits(), r.seeds()), (4, 3));
        assert_eq!(p.to_string(), "3,3,3,3/0/3,3,3,3/0/A");
        // Seeds the query gives itself must still be the position's.
        let q = pairs(Some("position=3,3,3,3/0/3,3,3,3/0/A&seeds=4"));
        let e = rules_and_position(&q, &d).unwrap_err();
        assert!(e.contains("holds 24 seeds"), "{e}");
    }
}
