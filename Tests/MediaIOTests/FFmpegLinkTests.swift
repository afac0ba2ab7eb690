import Testing
import CDropcutFFmpeg

/// libswscale and libswresample (not yet used by MediaIO) link, and match their headers.
@Suite struct FFmpegLinkTests {
    @Test func swscaleLinksAndMatchesItsHeader() {
        let version = swscale_version()
        #expect(version > 0)
        #expect(version >> 16 == UInt32(LIBSWSCALE_VERSION_MAJOR))
    }

    @Test func swresampleLinksAndMatchesItsHeader() {
        let version = swresample_version()
        #expect(version > 0)
        #expect(version >> 16 == UInt32(LIBSWRESAMPLE_VERSION_MAJOR))
    }

    @Test func avformatAndAvcodecMatchTheirHeaders() {
        #expect(avformat_version() >> 16 == UInt32(LIBAVFORMAT_VERSION_MAJOR))
        #expect(avcodec_version() >> 16 == UInt32(LIBAVCODEC_VERSION_MAJOR))
    }
}
