import Foundation
import DropcutPipeline

/// One file of a job's output in its record: the set commit's entry (`SetEntry`), stored
/// as it is. A deliverable set (a recipe with `outputs:`) is recorded whole from the
/// worker's first word, before any file of it is written; a single output becomes a set
/// of one while it is committed (`JobRunner.commit`).
package typealias DeliverableRecord = SetEntry

extension JobRecord {
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
