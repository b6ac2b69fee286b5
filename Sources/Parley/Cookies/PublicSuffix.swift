/// Public suffixes: domains under which anyone may register a name (`com`, `co.uk`), so that a cookie for one of them
/// would go to every site under it (RFC 6265, section 5.3, step 5).
///
/// Without the whole Public Suffix List (several thousand rules, updated often), Parley refuses every domain of one
/// label (`com`, `localhost`, a new generic top-level domain) and the two-label suffixes most used for registrations
/// under a country code. A domain outside these that is a public suffix by the list (`github.io`) is accepted.
enum PublicSuffix {
    /// Second-level registries under country codes: `co.uk`, `com.au`, and the like.
    private static let secondLevel: Set<String> = [
        "ac", "co", "com", "edu", "gov", "ltd", "me", "mil", "net", "nhs", "nic", "or", "org", "plc", "sch", "ne", "gr",
        "go", "lg", "ad", "ed", "gob", "gouv", "nom",
    ]

    /// Whether `domain` (lower case, no leading dot) is a public suffix.
    static func isPublicSuffix(_ domain: String) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count <= 1 { return true }
        if labels.contains(where: \.isEmpty) { return true }  // "co..uk", a trailing dot: nothing to set a cookie for
        guard labels.count == 2, let last = labels.last, last.utf8.count == 2 else { return false }
        return secondLevel.contains(String(labels[0]))
    }
}
