/// The invisible characters that change how text is laid out — line and paragraph
/// separators, and the bidi controls — which an output's name may not hold: a
/// RIGHT-TO-LEFT OVERRIDE makes `clip\u{202E}4pm.exe` display as `clipexe.mp4`, and a
/// separator breaks the line of every listing and log that names the file, as a newline
/// would. (C0 and C1 controls are `FilenameTemplate.controlCharacter`'s.)
package enum LayoutCharacter {
    /// Each refused character's Unicode name.
    static let names: [UInt32: String] = [
        0x061C: "ARABIC LETTER MARK",
        0x200E: "LEFT-TO-RIGHT MARK",
        0x200F: "RIGHT-TO-LEFT MARK",
        0x2028: "LINE SEPARATOR",
        0x2029: "PARAGRAPH SEPARATOR",
        0x202A: "LEFT-TO-RIGHT EMBEDDING",
        0x202B: "RIGHT-TO-LEFT EMBEDDING",
        0x202C: "POP DIRECTIONAL FORMATTING",
        0x202D: "LEFT-TO-RIGHT OVERRIDE",
        0x202E: "RIGHT-TO-LEFT OVERRIDE",
        0x2066: "LEFT-TO-RIGHT ISOLATE",
        0x2067: "RIGHT-TO-LEFT ISOLATE",
        0x2068: "FIRST STRONG ISOLATE",
        0x2069: "POP DIRECTIONAL ISOLATE",
    ]

    /// The Unicode name of `scalar` when it is one of these characters, else nil.
    package static func name(of scalar: Unicode.Scalar) -> String? { names[scalar.value] }

    /// The first of these characters in `text` and how many characters precede it, or nil.
    package static func first(in text: String) -> (scalar: Unicode.Scalar, offset: Int)? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where names[scalar.value] != nil { return (scalar, offset) }
        return nil
    }
}
