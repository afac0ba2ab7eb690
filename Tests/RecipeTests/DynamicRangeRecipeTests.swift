import Testing
@testable import DropcutRecipe
import TestSupport

/// `output.dynamic_range`: its values, its default, the codec it implies, and its errors
/// at line:column.
@Suite struct DynamicRangeRecipeTests {
    @Test func valuesParseAndDefaultToSDR() throws {
        #expect(try loadRecipe("version: 1\n").get().output.dynamicRange == .sdr)
        for value in Recipe.DynamicRange.allCases {
            let recipe = try loadRecipe("version: 1\noutput: { dynamic_range: \(value.rawValue) }\n").get()
            #expect(recipe.output.dynamicRange == value)
            // The codec is left to the dynamic range (HEVC for HDR outputs).
            #expect(!recipe.output.video.codecIsExplicit && recipe.output.video.codec == .h264)
        }
        let hevc = try loadRecipe("version: 1\noutput: { dynamic_range: hdr, video: { codec: hevc } }\n").get()
        #expect(hevc.output.dynamicRange == .hdr && hevc.output.video.codec == .hevc && hevc.output.video.codecIsExplicit)
        // H.264 stays fine for SDR.
        #expect(problems("version: 1\noutput: { dynamic_range: sdr, video: { codec: h264 } }\n") == ["(valid)"])
    }

    @Test func badValuesAreErrorsAtTheirPosition() {
        #expect(problems("""
        version: 1
        output:
          dynamic_range: hlg
        """) == ["3:18: output.dynamic_range must be one of sdr | hdr | source (got 'hlg')"])
        #expect(problems("version: 1\noutput: { dynamic_range: [hdr] }\n")
                == ["2:26: output.dynamic_range must be one of sdr | hdr | source, got a list"])
        #expect(problems("version: 1\noutput: { dynamic_rang: hdr }\n")
                == ["2:11: unknown key 'dynamic_rang' in output; did you mean 'dynamic_range'?"])
    }

    /// HDR is written as HEVC Main 10: naming H.264 as well is a contradiction reported at
    /// the dynamic range, for `hdr` and for `source` (which may turn out HDR).
    @Test func hdrWithH264IsAnError() {
        #expect(problems("""
        version: 1
        output:
          dynamic_range: hdr
          video: { codec: h264 }
        """) == ["3:18: output.dynamic_range: hdr needs output.video.codec: hevc (HDR is written as HEVC Main 10); "
                 + "leave the codec out or set it to hevc (got h264 at 4:19)"])
        #expect(problems("""
        version: 1
        output:
          video: { codec: h264, crf: 18 }
          dynamic_range: source
        """) == ["4:18: output.dynamic_range: source needs output.video.codec: hevc (HDR is written as HEVC Main 10); "
                 + "leave the codec out or set it to hevc (got h264 at 3:19)"])
    }
}
