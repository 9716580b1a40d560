//! What the GM's domain should publish so large receivers take pbem's mail (SPF, DKIM, DMARC), in words with the records, from the config alone: nothing is looked up.

use super::Config;

impl Config {
    /// The lines `pbem config check` prints about the GM address's domain: what each of SPF,
    /// DKIM and DMARC asks of the GM, and the DNS records to publish. pbem cannot see what is
    /// published (it looks nothing up), so it says what should be, and that it cannot check.
    pub fn dns_advice(&self) -> Vec<String> {
        let (_, domain) = self.address_parts();
        let mut out = vec![format!(
            "DNS for {domain} (pbem does not look it up and cannot check what is published; \
             large receivers such as Gmail and Outlook want all three of SPF, DKIM and DMARC):"
        )];
        out.push(format!(
            "SPF: publish which servers send for {domain}, unless it is done: {domain}. IN TXT \"{}\"{}",
            self.spf_record(),
            match self.relay_host() {
                Some(_) => " (your mail provider may give an include: to use instead)",
                None => "",
            }
        ));
        out.extend(self.dkim_advice(domain));
        let rua = self
            .admin_address
            .clone()
            .unwrap_or_else(|| format!("postmaster@{domain}"));
        out.push(format!(
            "DMARC: publish a policy for {domain}, unless it is done (it needs SPF or DKIM to \
             pass with {domain} in From, as pbem's mail has): _dmarc.{domain}. IN TXT \
             \"v=DMARC1; p=quarantine; rua=mailto:{rua}\""
        ));
        out
    }

    /// DKIM: the record of the key pbem signs with, or what to do without one.
    fn dkim_advice(&self, domain: &str) -> Vec<String> {
        let Some(dkim) = &self.dkim else {
            return vec![format!(
                "DKIM: pbem does not sign (no dkim_selector and dkim_key): unless the server \
                 that sends pbem's mail signs it for {domain}, make a key (openssl genpkey \
                 -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out dkim.pem), set \
                 dkim_selector and dkim_key, and run this again for the record to publish"
            )];
        };
        let mut out = vec![format!(
            "DKIM: pbem signs with the {} key of dkim_key as {}; publish: {}",
            dkim.algorithm(),
            dkim.record_name(),
            dkim.zone_line()
        )];
        if dkim.algorithm() == "ed25519" {
            out.push(
                "DKIM: many receivers (Gmail, Outlook) do not check ed25519 signatures yet; \
                 an RSA-2048 key is the one every receiver checks"
                    .into(),
            );
        }
        out
    }

    /// The SPF record to suggest: the domain's MX hosts, and the SMTP relay pbem sends
    /// through when it is another machine.
    fn spf_record(&self) -> String {
        match self.relay_host() {
            Some(host) => format!("v=spf1 mx a:{host} -all"),
            None => "v=spf1 mx -all".into(),
        }
    }

    /// The host of an SMTP transport that is not this machine.
    fn relay_host(&self) -> Option<String> {
        let url = url::Url::parse(self.transport.trim()).ok()?;
        if !url.scheme().starts_with("smtp") {
            return None;
        }
        let host = url
            .host_str()?
            .trim_matches(['[', ']'])
            .to_ascii_lowercase();
        let local = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        (!local).then_some(host)
    }
}
