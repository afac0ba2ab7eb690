import Foundation
import DropcutTimeline

/// How a set of outputs is made: which share a decode and which share a composite,
/// decided here, once, before anything is opened. A single movie is a plan of one output;
/// a recipe's deliverables (videos, ladders, posters, previews) are a plan of many.
///
/// The rule, in the outputs' order:
/// - a movie that copies its picture (pass-through), or splices it (copied groups of
///   pictures and encoded pieces: `VideoSplice`), is a group of its own (`.copy`): nothing
///   to decode, or only its pieces', nothing to share;
/// - every other movie joins the first group whose first output it shares its decode
///   with (`DecodeSharing.sharesDecode`: the same timeline, frame grid and sound) while
///   that group runs fewer than `maximumEncoders` encoders; else it starts one;
/// - an HLS ladder joins the first group it shares its pictures with
///   (`DecodeSharing.sharesPictures`) that has room for its rungs (one encoder each); else
///   it starts one. Its sound is the group's mix when it is the same mix
///   (`DecodeSharing.sharesMix`), else mixed on its own;
/// - pictures (a poster, a preview) join the first group they share their pictures with,
///   composited from its frames at no decode of their own; with none, they are a group
///   of their own (`.pictures`), each frame found and composited alone (`PosterRenderer`);
/// - in a group, outputs of one shape without overlays are composited once, at the
///   largest, and scaled down to the others (`DecodeSharing.scalesDown`).
///
/// A copy that fails — a source whose packets cannot be copied as they are, or an output
/// that does not read back as the composition (`OutputCheck`) — is replaced by the same
/// outputs with every stream encoded, planned by this same rule (`reencoding`).
package struct RenderPlan: Sendable {
    /// Outputs made together.
    package struct Group: Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// Each source frame decoded once, composited for every output (or scaled from
            /// one of its shape), the sound mixed once per distinct mix; the encoders side
            /// by side, each on its own thread.
            case shared
            /// A movie whose picture is copied from its source: packets, no decode (or, spliced,
            /// only its encoded pieces decoded, on its own).
            case copy
            /// Pictures with no encoded output to join: their frames found and composited
            /// on their own.
            case pictures
        }

        package var kind: Kind
        /// Indices into the plan's outputs: the encoded ones first (movies, then ladders,
        /// each in order), then the pictures.
        package var outputs: [Int]
        /// For an encoded output of the group (its position among them) scaled down from
        /// another's composite, that output's position.
        package var scaledFrom: [Int: Int] = [:]

        package init(kind: Kind, outputs: [Int], scaledFrom: [Int: Int] = [:]) {
            self.kind = kind
            self.outputs = outputs
            self.scaledFrom = scaledFrom
        }
    }

    /// The most video encoders one decode serves: a movie counts one, an HLS ladder one
    /// per rung. They run at once, each with its own lookahead (x264 at veryfast holds
    /// about 200 MB for a 1080p output), so a set of 16 would hold them all; more render
    /// in several groups, each one decode.
    package static let maximumEncoders = 4

    package let outputs: [RenderOutput]
    package let groups: [Group]

    package init(outputs: [RenderOutput]) {
        self.outputs = outputs
        groups = Self.group(outputs)
    }

    /// The outputs of `group` with every stream encoded, planned anew: what a group whose
    /// copy failed is made as. Its outputs are `group.outputs`, in order.
    package func reencoding(_ group: Group) -> RenderPlan {
        RenderPlan(outputs: group.outputs.map { outputs[$0].encodingEverything })
    }

    /// Canvases each encoded output has in flight: one when it is alone (a third, queued,
    /// bought no speed on 2 cores and cost a frame of memory), two when encoders share the
    /// compositing stage, so it does not wait for each in turn.
    static func poolSize(encodedOutputs: Int) -> Int { encodedOutputs > 1 ? 2 : 1 }

    private static func group(_ outputs: [RenderOutput]) -> [Group] {
        var groups: [Group] = []
        func encoders(_ group: Group) -> Int { group.outputs.reduce(0) { $0 + outputs[$1].encoders } }
        func first(_ group: Group) -> ExportSession { outputs[group.outputs[0]].session }
        func join(_ index: Int, where fits: (Group) -> Bool) -> Bool {
            guard let found = groups.firstIndex(where: { $0.kind == .shared && fits($0) }) else { return false }
            groups[found].outputs.append(index)
            return true
        }
        for (index, output) in outputs.enumerated() {
            guard case .file = output.destination else { continue }
            if output.session.settings.copiesVideo {
                groups.append(Group(kind: .copy, outputs: [index]))
            } else if !join(index, where: {
                encoders($0) + 1 <= maximumEncoders && DecodeSharing.sharesDecode(first($0), output.session)
            }) {
                groups.append(Group(kind: .shared, outputs: [index]))
            }
        }
        for (index, output) in outputs.enumerated() {
            guard case .ladder = output.destination else { continue }
            if !join(index, where: {
                encoders($0) + output.encoders <= maximumEncoders && DecodeSharing.sharesPictures(first($0), output.session)
            }) {
                groups.append(Group(kind: .shared, outputs: [index]))
            }
        }
        for (index, output) in outputs.enumerated() {
            guard case .pictures = output.destination else { continue }
            if !join(index, where: { DecodeSharing.sharesPictures(first($0), output.session) }) {
                groups.append(Group(kind: .pictures, outputs: [index]))
            }
        }
        for index in groups.indices where groups[index].kind == .shared {
            let encoded = groups[index].outputs.filter { outputs[$0].isEncoded }
            groups[index].scaledFrom = DecodeSharing.scaledFrom(encoded.map { outputs[$0].session })
        }
        return groups
    }
}
