import Foundation
import DropcutMediaIO
import DropcutPipeline
import DropcutRender
@testable import DropcutSupport
import Testing

/// The pipeline sorts its own errors, so a front end (the daemon) need not import the
/// engine to decide between "retry later" and "this clip is bad".
@Suite struct RenderFailureTests {
    struct Unknown: Error, CustomStringConvertible { var description: String { "a recipe said no" } }

    @Test func everyEngineErrorIsSortedByWhatToDoAboutIt() {
        #expect(RenderFailure.classify(ExportError.cancelled) == .cancelled)
        #expect(RenderFailure.classify(CancellationError()) == .cancelled)
        // FFmpeg's AVERROR(e) is -e: a full disk is worth retrying, a missing file is not.
        let full = FFmpegError(code: -ENOSPC, function: "av_write_frame", path: "/out/x.mp4")
        #expect(RenderFailure.classify(full) == .transient(full.description, errno: ENOSPC))
        let missing = FFmpegError(code: -ENOENT, function: "avformat_open_input", path: "/in/x.mov")
        #expect(RenderFailure.classify(missing) == .permanent(missing.description, errno: ENOENT))
        // FFmpeg's own codes (AVERROR_INVALIDDATA is a tag, not an errno) carry no errno.
        let invalid = FFmpegError(code: -0x4144_4E49, function: "avcodec_send_packet", path: "/in/x.mov")
        #expect(RenderFailure.classify(invalid) == .permanent(invalid.description, errno: nil))
        let thread = DetachedThread.StartError(errno: EAGAIN, name: "dropcut-prepare")
        #expect(RenderFailure.classify(thread) == .transient(thread.description, errno: EAGAIN))
        let share = SystemError(errno: ESTALE, function: "rename", path: "/share/x")
        #expect(RenderFailure.classify(share) == .transient(share.description, errno: ESTALE))
        let folder = SystemError(errno: EISDIR, function: "open", path: "/x")
        #expect(RenderFailure.classify(folder) == .permanent(folder.description, errno: EISDIR))
        #expect(RenderFailure.classify(Unknown()) == .permanent("a recipe said no", errno: nil))
        #expect(RenderFailure.classify(RenderFailure.transient("again", errno: EIO)) == .transient("again", errno: EIO))
    }

    /// Every errno on the transient list is sorted transient whichever way it arrives.
    @Test(arguments: RenderFailure.transientErrnos.sorted())
    func transientErrnosAreTransientFromFFmpegAndFromTheSystem(code: Int32) {
        guard case .transient(_, code) = RenderFailure.classify(FFmpegError(code: -code, function: "f", path: nil)) else {
            Issue.record("FFmpeg errno \(code)"); return
        }
        guard case .transient(_, code) = RenderFailure.classify(SystemError(errno: code, function: "f", path: "/p")) else {
            Issue.record("system errno \(code)"); return
        }
    }
}
