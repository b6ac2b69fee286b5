extension ParleyError {
    /// One readable paragraph: what was sent, what came back, what failed, where. Safe to log: characters that
    /// are not printable are escaped wherever they came from (message, reason phrase, header value, body,
    /// underlying error), and the URL's user info is redacted.
    public var description: String {
        var text = "Parley \(kind.label) error"
        if let request { text += " for \(request)" }
        text += ": " + message
        if let attempts { text += " (gave up after \(attempts) attempts)" }
        if let last = text.last, !".!?".contains(last) { text += "." }
        if let keptDownload {
            text +=
                " The \(keptDownload.bytes) bytes received are kept in \(keptDownload.path); download again with "
                + "resume: true to continue."
        }
        if let codingPath, !codingPath.isEmpty, !message.contains(codingPath) { text += " (at \(codingPath))" }
        if let response {
            text += " Response: \(response.status.code) \(response.status.reasonPhrase)"
            if let contentType = response.headerFields[.contentType] { text += ", Content-Type \(contentType)" }
            text += "."
        }
        if let excerpt = bodyExcerpt { text += " Body: \(excerpt)" }
        if let underlying, !(underlying is CancellationError), kind != .decoding || codingPath == nil {
            let detail = String(describing: underlying)
            if !message.contains(detail) { text += " Underlying error: \(detail)" }
        }
        return PrintableText.escaping(text, keepingLineFeeds: keepsLineFeeds)
    }
}
