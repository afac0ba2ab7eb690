import Foundation
import DropcutPipeline

/// One file of a job's output in its record: the set commit's entry (`SetEntry`), stored
/// as it is. Every output is a set, recorded whole from the worker's first word, before
/// any file of it is written: a recipe's `outputs:` and their manifest, or a single
/// output's set of one.
package typealias DeliverableRecord = SetEntry

extension JobRecord {
    /// Records a single output as its set of one: its name, its temporary file, its inode
    /// once sealed and its path once published.
    package mutating func recordSingleOutput(_ name: String, temporary: String?, inode: UInt64? = nil, published: String? = nil) {
        deliverables = [.singleOutput(name, temporary: temporary, inode: inode, output: published)]
        setSuffix = nil
    }

    /// The names a job publishes, in order: a set's files (the manifest last) published or
    /// as they will be named, else the one output; what the journal's done line, `dropcut
    /// status` and the record list. A ladder is named as the manifest names it: its master
    /// playlist in its folder (`clip-1/clip.m3u8`).
    package var outputNames: [String] {
        if let deliverables {
            return deliverables.map { entry in
                let published = ((entry.output ?? entry.publishedName) as NSString).lastPathComponent
                return entry.isLadder ? published + "/" + entry.name : published
            }
        }
        return output.map { [($0 as NSString).lastPathComponent] } ?? []
    }
}
