//! Whether the receiving server's word (`Authentication-Results` from a trusted authserv-id) says a mail's From was forged: DMARC, else DKIM and SPF alignment.
//!
//! Anyone can write the field, so only the ids the GM names count, and an id found on more
//! than one field counts for nothing: the MTA that writes it should remove look-alikes, but
//! pbem cannot tell the real one from a stranger's. Mail with no such word is judged as
//! before (the secret address, a password). Several trusted ids (Postfix's OpenDKIM and
//! OpenDMARC, each named) pool their results.

use crate::mail::inbound::{Inbound, MethodResult};

/// Why a mail's From is taken for forged, for the GM's log; `None`: no trusted word against
/// it (it passed, or nothing trusted was said).
pub(super) fn forged(inb: &Inbound, trusted: &[String]) -> Option<String> {
    let domain = inb.from.as_deref()?.rsplit_once('@')?.1;
    let results = trusted_results(inb, trusted);
    let by = |r: &MethodResult| r.method == "dmarc" && same_domain(r.prop("header.from"), domain);
    let dmarc: Vec<&MethodResult> = results.iter().map(|(_, r)| *r).filter(|r| by(r)).collect();
    if let Some((id, _)) = results.iter().find(|(_, r)| by(r) && r.result == "fail") {
        return Some(format!("forged: DMARC fails for {domain} (says {id})"));
    }
    if dmarc.iter().any(|r| r.result == "pass") {
        return None;
    }
    // Without a DMARC verdict on this From: a pass of DKIM or SPF aligned with it.
    let checks: Vec<&(&str, &MethodResult)> = results
        .iter()
        .filter(|(_, r)| r.method == "dkim" || r.method == "spf")
        .collect();
    // Nothing checked, or a check that could not finish (a DNS timeout): no word against it.
    if checks.is_empty() || checks.iter().any(|(_, r)| r.result == "temperror") {
        return None;
    }
    if checks.iter().any(|(_, r)| aligned_pass(r, domain)) {
        return None;
    }
    let id = checks[0].0;
    Some(format!(
        "forged: no DMARC result, and neither DKIM nor SPF passes aligned with {domain} \
         (says {id})"
    ))
}

/// Each result of the fields whose authserv-id is trusted and found on exactly one field,
/// with that id.
fn trusted_results<'a>(
    inb: &'a Inbound,
    trusted: &'a [String],
) -> Vec<(&'a str, &'a MethodResult)> {
    let mut out = Vec::new();
    for id in trusted {
        let mut fields = inb
            .authentication
            .iter()
            .filter(|f| f.authserv_id.as_deref() == Some(id.as_str()));
        let (Some(field), None) = (fields.next(), fields.next()) else {
            continue;
        };
        out.extend(field.results.iter().map(|r| (id.as_str(), r)));
    }
    out
}

/// A DKIM pass whose signing domain, or an SPF pass whose envelope sender's domain, is
/// aligned with the From's.
fn aligned_pass(r: &MethodResult, domain: &str) -> bool {
    if r.result != "pass" {
        return false;
    }
    let other = match r.method.as_str() {
        // `header.i` (an identity such as `@example.org`) when a server writes no `header.d`.
        "dkim" => r.prop("header.d").or(r.prop("header.i")),
        // RFC 8601 allows `smtp.mailfrom` to be a domain alone (Exchange Online's).
        _ => r.prop("smtp.mailfrom"),
    };
    let Some(other) = other.map(|v| v.rsplit_once('@').map_or(v, |(_, d)| d)) else {
        return false;
    };
    aligned(other, domain)
}

/// Whether a property names this domain itself (DMARC's `header.from`).
fn same_domain(value: Option<&str>, domain: &str) -> bool {
    value.is_some_and(|v| v.trim_end_matches('.').eq_ignore_ascii_case(domain))
}

/// DMARC's relaxed alignment: the same domain, or both under the same organizational domain
/// (one a subdomain of the other, or siblings). That domain is approximated without the public suffix
/// list: the last two labels, or three under a two-letter country's short second level
/// (`co.uk`, `com.au`), so `a.co.uk` and `b.co.uk` never align.
fn aligned(a: &str, b: &str) -> bool {
    let (a, b) = (
        a.trim_end_matches('.').to_ascii_lowercase(),
        b.trim_end_matches('.').to_ascii_lowercase(),
    );
    if a.is_empty() || b.is_empty() {
        return false;
    }
    // No bare subdomain test: `org` would then align with every `.org`.
    a == b || organizational(&a).is_some_and(|o| Some(o) == organizational(&b))
}

/// The approximate organizational domain (see `aligned`); `None` for a name too short to
/// have one.
fn organizational(domain: &str) -> Option<&str> {
    let labels: Vec<&str> = domain.split('.').collect();
    let n = labels.len();
    if n < 2 {
        return None;
    }
    let country_second_level = labels[n - 1].len() == 2 && labels[n - 2].len() <= 3;
    let keep = if country_second_level { 3 } else { 2 };
    if n < keep {
        return None;
    }
    let skip: usize = labels[..n - keep].iter().map(|l| l.len() + 1).sum();
    Some(&domain[skip..])
}

#[cfg(test)]
mod tests;
