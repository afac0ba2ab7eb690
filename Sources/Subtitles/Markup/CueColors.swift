import DropcutTimeline

/// The colours cue markup names: WebVTT's default colour classes (the spec's `::cue(.red)`
/// and `::cue(.bg_red)` rules), and SRT's `<font color>` values as ffmpeg's HTML subtitle
/// markup reads them (`#rrggbb`, `#rgb`, `rrggbb`, the CSS colour keywords players know).
enum CueColors {
    /// The colour of a WebVTT default class (`white`, `lime`, `cyan`, `red`, `yellow`,
    /// `magenta`, `blue`, `black`), or nil.
    static func webVTTClass(_ name: Substring) -> Color? {
        switch name {
        case "white": rgb(255, 255, 255)
        case "lime": rgb(0, 255, 0)
        case "cyan": rgb(0, 255, 255)
        case "red": rgb(255, 0, 0)
        case "yellow": rgb(255, 255, 0)
        case "magenta": rgb(255, 0, 255)
        case "blue": rgb(0, 0, 255)
        case "black": rgb(0, 0, 0)
        default: nil
        }
    }

    /// An HTML colour value, or nil when it is none.
    static func html(_ value: Substring) -> Color? {
        let value = value.lowercased()
        var hex = Substring(value)
        if hex.first == "#" { hex = hex.dropFirst() }
        if hex.count == 6 || hex.count == 3, hex.allSatisfy(\.isHexDigit), let number = Int(hex, radix: 16) {
            if hex.count == 3 {
                return rgb((number >> 8 & 0xF) * 17, (number >> 4 & 0xF) * 17, (number & 0xF) * 17)
            }
            return rgb(number >> 16 & 0xFF, number >> 8 & 0xFF, number & 0xFF)
        }
        return keywords[value]
    }

    private static func rgb(_ red: Int, _ green: Int, _ blue: Int) -> Color {
        Color(red: Double(red) / 255, green: Double(green) / 255, blue: Double(blue) / 255)
    }

    /// CSS's basic colour keywords and the extended ones subtitle files use most.
    private static let keywords: [String: Color] = [
        "black": rgb(0, 0, 0), "silver": rgb(192, 192, 192), "gray": rgb(128, 128, 128), "grey": rgb(128, 128, 128),
        "white": rgb(255, 255, 255), "maroon": rgb(128, 0, 0), "red": rgb(255, 0, 0), "purple": rgb(128, 0, 128),
        "fuchsia": rgb(255, 0, 255), "magenta": rgb(255, 0, 255), "green": rgb(0, 128, 0), "lime": rgb(0, 255, 0),
        "olive": rgb(128, 128, 0), "yellow": rgb(255, 255, 0), "navy": rgb(0, 0, 128), "blue": rgb(0, 0, 255),
        "teal": rgb(0, 128, 128), "aqua": rgb(0, 255, 255), "cyan": rgb(0, 255, 255), "orange": rgb(255, 165, 0),
        "pink": rgb(255, 192, 203), "brown": rgb(165, 42, 42), "gold": rgb(255, 215, 0), "violet": rgb(238, 130, 238),
        "lightblue": rgb(173, 216, 230), "lightgreen": rgb(144, 238, 144), "darkred": rgb(139, 0, 0),
    ]
}
