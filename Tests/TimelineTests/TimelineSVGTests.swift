import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import DropcutTimeline

/// Collects the elements of an SVG document with their attributes, in document order.
final class SVGElements: NSObject, XMLParserDelegate {
    var elements: [(name: String, attributes: [String: String])] = []
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
        elements.append((name, attributes))
    }

    static func parse(_ svg: String) throws -> [(name: String, attributes: [String: String])] {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = SVGElements()
        parser.delegate = collector
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
        return collector.elements
    }
}

@Suite struct TimelineSVGTests {
    @Test func drawsOneRowPerTrackWithABoxPerSegment() throws {
        let article = try ArticleComposition()
        let svg = TimelineSVG.render(composition: article.composition, videoComposition: article.videoComposition,
                                     audioMix: article.audioMix, title: "A, B, C & music")
        let elements = try SVGElements.parse(svg)   // well-formed XML, title escaped
        let segments = elements.filter { $0.name == "rect" && $0.attributes["class"] == "segment" }
        let expectedCount = article.composition.tracks.reduce(0) { $0 + $1.segments.count }
        #expect(segments.count == expectedCount)
        #expect(elements.filter { $0.attributes["class"] == "track" }.count == 7)
        #expect(elements.filter { $0.attributes["class"] == "instruction" }.count == 2)

        // Boxes sit at their target times: the plot maps 0...10 s onto 150...1050 px.
        let xs = segments.compactMap { Double($0.attributes["x"] ?? "") }
        let widths = segments.compactMap { Double($0.attributes["width"] ?? "") }
        // Track 6's second box (C at 6–10 s) starts at 150 + 900 × 0.6 and is 360 px wide.
        #expect(xs[8] == 690 && widths[8] == 360)
        #expect(segments[0].attributes["stroke-dasharray"] != nil)   // track 1 starts empty
    }

    @Test func drawsVolumeCurvesOverAudioRows() throws {
        let article = try ArticleComposition()
        let svg = TimelineSVG.render(composition: article.composition, audioMix: article.audioMix)
        let curves = try SVGElements.parse(svg).filter { $0.name == "polyline" }
        #expect(curves.map { $0.attributes["data-track-id"] } == ["1", "3", "5", "7"])
        // Track 7 (C's audio): silent until 8 s, then up to full volume at 10 s.
        let points = try #require(curves.last?.attributes["points"]).split(separator: " ").map { pair in
            pair.split(separator: ",").map { Double($0)! }
        }
        #expect(points.map { $0[0] } == [150, 870, 1050])
        let rowTop = points[0][1] - 44   // volume 0 sits at the row's bottom
        #expect(points[1][1] == points[0][1] && points[2][1] == rowTop)
    }

    @Test func captionsGetARowWithABoxPerCue() throws {
        let article = try ArticleComposition()
        func s(_ v: Double) -> MediaTime { MediaTime(seconds: v, preferredTimescale: 1000) }
        let track = CaptionTrack(cues: [CaptionCue(timeRange: TimeRange(start: s(1), end: s(2)), text: "one <&>"),
                                        CaptionCue(timeRange: TimeRange(start: s(3), end: s(5)), text: "two\nlines")],
                                 style: CaptionStyle(fontPaths: []))
        let layer = OverlayLayer(content: .captions(track), anchor: .bottom, margin: 0,
                                 timeRange: TimeRange(start: .zero, end: article.composition.duration))
        let svg = TimelineSVG.render(composition: article.composition, overlays: [layer])
        let elements = try SVGElements.parse(svg)   // cue text escaped
        #expect(elements.filter { $0.name == "g" && $0.attributes["class"] == "captions" }.map { $0.attributes["data-cues"] } == ["2"])
        let cues = elements.filter { $0.name == "rect" && $0.attributes["class"] == "cue" }
        #expect(cues.count == 2)
        // The second cue is twice as wide as the first (2 s against 1 s).
        let widths = cues.compactMap { $0.attributes["width"].flatMap(Double.init) }
        #expect(widths.count == 2 && abs(widths[1] - 2 * widths[0]) < 0.01)
        #expect(svg.contains("one &lt;&amp;&gt;") && svg.contains("two lines"))
    }

    @Test func outputIsDeterministic() throws {
        let article = try ArticleComposition()
        let a = TimelineSVG.render(composition: article.composition, videoComposition: article.videoComposition, audioMix: article.audioMix)
        let b = TimelineSVG.render(composition: try ArticleComposition().composition,
                                   videoComposition: article.videoComposition, audioMix: article.audioMix)
        #expect(a == b)
        #expect(TimelineDescription.text(composition: article.composition) == TimelineDescription.text(composition: try ArticleComposition().composition))
    }

    @Test func escapesNamesAndDrawsAnAxis() throws {
        var composition = Composition()
        let track = composition.addTrack(.video)
        let odd = SourceTrack(asset: "a<b>&\"c\".mov", trackID: 1, mediaType: .video, duration: 100)
        try composition.edit(track: track) { try $0.insert(range("0", "95"), of: odd, at: 0) }
        let svg = TimelineSVG.render(composition: composition)
        let elements = try SVGElements.parse(svg)
        #expect(svg.contains("a&lt;b&gt;&amp;&quot;c&quot;.mov"))
        // 95 s: ticks every 10 s, 0...90.
        #expect(elements.filter { $0.name == "line" }.count == 10)
    }
}

/// Overlays in the drawing: a row each, their opacity, their keyframes each pass.
@Suite struct TimelineSVGOverlayTests {
    @Test func anOverlaysRowShowsItsOpacityAndEveryPassOfItsKeyframes() throws {
        var composition = Composition()
        let track = composition.addTrack(.video)
        let source = SourceTrack(asset: "a.mov", trackID: 1, mediaType: .video, duration: 10)
        try composition.edit(track: track) { try $0.insert(TimeRange(start: 0, duration: 10), of: source, at: 0) }
        var layer = OverlayLayer(content: .image(path: "logo.png"), anchor: .center, margin: 0, timeRange: TimeRange(start: 2, duration: 5))
        try layer.opacity.setRamp(from: 0, to: 1, range: TimeRange(start: 2, duration: 5))
        layer.spin = OverlayLayer.Spin(axis: .y, distance: 500)
        layer.animation.spin = try KeyframeAnimation(keyframes: [.init(time: 0, value: 0), .init(time: 2, value: 360)], beginTime: 2, repeatCount: .forever)
        layer.animation.scale = try KeyframeAnimation(keyframes: [.init(time: 0, value: 1), .init(time: 1, value: 2)], beginTime: 2, repeatCount: .times(2))
        let plain = TimelineSVG.render(composition: composition)
        let svg = TimelineSVG.render(composition: composition, overlays: [layer])
        #expect(!plain.contains("overlay"))
        #expect(svg.contains(">overlay 1 (image)</text>"))
        // Opacity 0 at 2 s (the row's bottom, y = 24 + 52 + 44) up to 1 at 7 s (its top).
        let opacity = try #require(svg.split(separator: "\n").first { $0.contains("overlay-opacity") })
        #expect(opacity.contains(#"points="330,120 "#) && opacity.contains(" 780,76\""), "\(opacity.prefix(120))...\(opacity.suffix(80))")
        // Spin: keyframes at 2, 4 (end of a pass and start of the next, drawn twice), 6; forever until 7 s.
        let spin = try #require(svg.split(separator: "\n").first { $0.contains(#"data-property="spin""#) })
        #expect(spin.contains(#"d="M330,86v6 M510,86v6 M510,86v6 M690,86v6 M690,86v6""#), "\(spin)")
        // Scale: two passes of one second only.
        let scale = try #require(svg.split(separator: "\n").first { $0.contains(#"data-property="scale""#) })
        #expect(scale.contains(#"d="M330,79v6 M420,79v6 M420,79v6 M510,79v6""#), "\(scale)")
        #expect(svg.split(separator: "\n").first { $0.contains(#"data-property="spin""#) }?.contains("repeat forever") == true)
    }

    /// Groups in groups: a row for every layer of the tree, depth first, each numbered and
    /// indented under the group holding it.
    @Test func nestedGroupsGetARowPerLayerUnderTheirGroup() throws {
        var composition = Composition()
        let track = composition.addTrack(.video)
        let source = SourceTrack(asset: "a.mov", trackID: 1, mediaType: .video, duration: 10)
        try composition.edit(track: track) { try $0.insert(TimeRange(start: 0, duration: 10), of: source, at: 0) }
        let range = TimeRange(start: 1, duration: 5)
        let logo = OverlayLayer(content: .image(path: "logo.png"), anchor: .left, margin: 0, timeRange: range)
        let name = OverlayLayer(content: .text("ACME", fontPath: "f.ttf", pixelSize: 20, color: .white), anchor: .top, margin: 0, timeRange: range)
        var caption = OverlayLayer(content: .group([name, name], size: Size(width: 100, height: 40)), anchor: .bottom, margin: 0, timeRange: range)
        try caption.opacity.set(0.5, at: 1)
        let root = OverlayLayer(content: .group([logo, caption], size: Size(width: 200, height: 100)), anchor: .topLeft, margin: 0, timeRange: range)
        let after = OverlayLayer(content: .image(path: "bug.png"), anchor: .topRight, margin: 0, timeRange: range)
        let svg = TimelineSVG.render(composition: composition, overlays: [root, after])
        let labels = svg.split(separator: "\n").filter { $0.contains("<text") && $0.contains(">overlay ") }
        #expect(labels.map { $0.split(separator: ">").last?.split(separator: "<").first.map(String.init) ?? "" }
                == ["overlay 1 (group of 2)", "overlay 1.1 (image)", "overlay 1.2 (group of 2)", "overlay 1.2.1 (text)",
                    "overlay 1.2.2 (text)", "overlay 2 (image)"])
        // Indented 8 px a level; the rows' ids are their paths.
        #expect(labels[3].contains(#"<text x="20""#) && labels[0].contains(#"<text x="4""#))
        #expect(svg.contains(#"<g class="overlay" data-overlay="0.1.1" data-depth="2">"#) && svg.contains(#"data-overlay="1" data-depth="0""#))
        // Six overlay rows below the track: the drawing is tall enough for them.
        #expect(svg.contains(#"height="\#(24 + 7 * 52 + 8)""#), "\(svg.prefix(200))")
    }
}
