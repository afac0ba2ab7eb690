import Testing
import DropcutTimeline

@Suite struct VideoCodecIDTests {
    /// The HDR ⇒ HEVC rule on every combination: only HEVC carries HDR; an HDR output
    /// without a named codec gets it; a named codec, or an SDR output, keeps the recipe's.
    @Test(arguments: [false, true], [false, true])
    func anHDROutputWithoutANamedCodecIsHEVC(hdr: Bool, named: Bool) {
        for codec in VideoCodecID.allCases {
            let chosen = VideoCodecID.forOutput(hdr: hdr, recipeCodec: codec, named: named)
            #expect(chosen == (hdr && !named ? .hevc : codec), "hdr \(hdr), named \(named), recipe \(codec)")
        }
        #expect(VideoCodecID.allCases.filter(\.carriesHDR) == [VideoCodecID.hdr])
    }
}
