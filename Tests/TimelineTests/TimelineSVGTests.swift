import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Timeline

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
