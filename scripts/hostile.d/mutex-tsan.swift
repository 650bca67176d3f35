// Shows that Synchronization.Mutex on Linux gives ThreadSanitizer false positives (see tsan.supp):
//   swiftc -sanitize=thread scripts/hostile.d/mutex-tsan.swift -o /tmp/mutex-tsan && /tmp/mutex-tsan
// prints "WARNING: ThreadSanitizer" reports although every access is inside withLock.
import Foundation
import Synchronization

final class Box: Sendable {
    let values = Mutex<[Int]>([])
}

let box = Box()
let threads = (0..<4).map { i in
    Thread {
        for j in 0..<20_000 {
            box.values.withLock { values in
                values.append(i * j)
                if values.count > 100 { values.removeAll(keepingCapacity: true) }
            }
        }
    }
}
threads.forEach { $0.start() }
Thread.sleep(forTimeInterval: 3)
print("done", box.values.withLock { $0.count })
