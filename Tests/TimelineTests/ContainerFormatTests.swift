import Testing
import DropcutTimeline

@Suite struct ContainerFormatTests {
    @Test func extensionsPickTheContainerInAnyCase() {
        #expect(ContainerFormat(pathExtension: "mp4") == .mp4 && ContainerFormat(pathExtension: "M4V") == .mp4)
        #expect(ContainerFormat(pathExtension: "MoV") == .mov)
        for other in ["mkv", "webm", "mp", "", "mp4 "] { #expect(ContainerFormat(pathExtension: other) == nil, "\(other)") }
        // Every listed extension is accepted, and the message lists them all.
        for ext in ContainerFormat.extensions { #expect(ContainerFormat(pathExtension: ext) != nil) }
        #expect(ContainerFormat.extensionList == ".mp4, .mov or .m4v")
    }

    @Test func pathsUseTheirLastComponentsExtension() {
        #expect(ContainerFormat(path: "/out/clip.final.MOV") == .mov)
        #expect(ContainerFormat(path: "out.mp4/clip") == nil)
        #expect(ContainerFormat(path: "/out/.mp4") == nil)   // a hidden name, not an extension
        #expect(ContainerFormat(path: "/out/.clip.partial-1.mp4") == .mp4)
    }

    @Test func evenSizes() {
        #expect(PixelSize(width: 1080, height: 1920).isEven && !PixelSize(width: 1081, height: 1920).isEven)
        #expect(PixelSize(width: 1081, height: 607).evenRoundedDown == PixelSize(width: 1080, height: 606))
        #expect(PixelSize(width: 1, height: 0).evenRoundedDown == PixelSize(width: 2, height: 2))
    }
}
