internal import CDropcutHarfBuzz

/// A HarfBuzz buffer (`hb_buffer_t`), freed in `deinit`: one per layout, reset for each
/// run it shapes.
final class ShapingBuffer {
    private let buffer: OpaquePointer
    /// The language every run is shaped in.
    private let language: hb_language_t?

    /// One glyph as HarfBuzz placed it, in 26.6 pixels of the em.
    struct Glyph {
        var id: UInt32
        /// Index of the first code point of the glyph's cluster in the paragraph.
        var cluster: Int
        var advance: Int
        var offsetX: Int
        var offsetY: Int
    }

    /// For text in `language` (BCP 47; nil: the process's, from the locale). Nil when
    /// HarfBuzz cannot allocate one.
    init?(language: String? = nil) {
        guard let buffer = hb_buffer_create(), hb_buffer_allocation_successful(buffer) != 0 else { return nil }
        self.buffer = buffer
        self.language = language.map { tag in tag.withCString { hb_language_from_string($0, -1) } } ?? Self.defaultLanguage
    }

    deinit { hb_buffer_destroy(buffer) }

    /// The process's language (from the locale), for language-specific forms. Asked once:
    /// HarfBuzz's first call reads the locale with `setlocale`, which must not race.
    private nonisolated(unsafe) static let defaultLanguage: hb_language_t? = hb_language_get_default()

    /// Shapes `run` of `paragraph` (code points; the rest of the paragraph is context, so
    /// a letter at a run's edge takes the form its neighbours give it) in `font`, in
    /// `rightToLeft` direction and `script` (0: Common). Glyphs come in visual order: for a
    /// right-to-left run, last character first.
    func shape(_ paragraph: UnsafeBufferPointer<UInt32>, run: Range<Int>, font: FontFace, rightToLeft: Bool,
               script: UInt32) -> [Glyph] {
        hb_buffer_clear_contents(buffer)
        hb_buffer_add_utf32(buffer, paragraph.baseAddress, Int32(paragraph.count), UInt32(run.lowerBound), Int32(run.count))
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, script == 0 ? dropcut_hb_script_common() : hb_script_t(rawValue: script))
        hb_buffer_set_language(buffer, language)
        hb_shape(font.shaper, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        // A bitmap font draws at its strike: its positions are scaled to the em.
        let scale = font.scale
        func scaled(_ value: Int32) -> Int { scale == 1 ? Int(value) : Int((Double(value) * scale).rounded()) }
        return (0..<Int(count)).map { i in
            Glyph(id: infos[i].codepoint, cluster: Int(infos[i].cluster),
                  advance: font.subtitleAdvance(of: infos[i].codepoint, unhinted: scaled(positions[i].x_advance)),
                  offsetX: scaled(positions[i].x_offset), offsetY: scaled(positions[i].y_offset))
        }
    }

    /// The script of a code point (HarfBuzz's Unicode data), as its tag; Common, Inherited
    /// and Unknown are reported as 0 (the caller takes its neighbours').
    static func script(of scalar: UInt32) -> UInt32 {
        let script = hb_unicode_script(hb_unicode_funcs_get_default(), scalar)
        if script == dropcut_hb_script_common() || script == dropcut_hb_script_inherited() || script == dropcut_hb_script_unknown() {
            return 0
        }
        return script.rawValue
    }
}
