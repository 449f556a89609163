import CloudFunctions
import Foundation
import GRDB

extension EmulatorStore {
    /// The task queues' tasks: those waiting or running, and those finished within the hour
    /// their ids stay taken.
    static let tasksSchema = StoreSchema(name: "tasks-v1") { db in
        try db.execute(sql: """
            CREATE TABLE queued_task (
                queue TEXT NOT NULL, id TEXT NOT NULL, location TEXT NOT NULL, body BLOB NOT NULL,
                headers TEXT NOT NULL, schedule_time REAL NOT NULL, create_time REAL NOT NULL,
                dispatch_deadline REAL, dispatch_count INTEGER NOT NULL, response_count INTEGER NOT NULL,
                first_attempt REAL, last_attempt REAL, last_status INTEGER, last_error TEXT,
                state TEXT NOT NULL, finish_time REAL,
                PRIMARY KEY (queue, id))
            """)
    }

    /// Every stored task; a task that was being dispatched when the emulator stopped is queued again.
    func loadTasks() throws -> [QueuedTask] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM queued_task ORDER BY schedule_time").map { row in
                let headers = (try? JSONDecoder().decode([String: String].self, from: Data((row["headers"] as String).utf8)))
                var task = QueuedTask(
                    queue: row["queue"], location: row["location"], id: row["id"], body: row["body"], headers: headers ?? [:],
                    scheduleTime: Date(timeIntervalSince1970: row["schedule_time"]),
                    createTime: Date(timeIntervalSince1970: row["create_time"]),
                    dispatchDeadline: (row["dispatch_deadline"] as Double?).map { .seconds($0) })
                task.dispatchCount = row["dispatch_count"]
                task.responseCount = row["response_count"]
                task.firstAttemptTime = (row["first_attempt"] as Double?).map(Date.init(timeIntervalSince1970:))
                task.lastAttemptTime = (row["last_attempt"] as Double?).map(Date.init(timeIntervalSince1970:))
                task.lastResponseStatus = row["last_status"]
                task.lastError = row["last_error"]
                let state = QueuedTask.State(rawValue: row["state"]) ?? .queued
                task.state = state == .dispatching ? .queued : state
                task.finishTime = (row["finish_time"] as Double?).map(Date.init(timeIntervalSince1970:))
                return task
            }
        }
    }

    /// Stores the task `queue`/`id` as `current` gives it when the write runs (so that of two
    /// writes of one task, the later always stores the newer state), or deletes it when
    /// `current` gives `nil`.
    func saveTask(queue: String, id: String, current: @escaping @Sendable () -> QueuedTask?) async throws {
        _ = try await write { transaction in
            guard let task = current() else {
                try transaction.db.execute(sql: "DELETE FROM queued_task WHERE queue = ? AND id = ?", arguments: [queue, id])
                return
            }
            let headers = String(decoding: (try? JSONEncoder().encode(task.headers)) ?? Data("{}".utf8), as: UTF8.self)
            try transaction.db.execute(sql: """
                INSERT OR REPLACE INTO queued_task (queue, id, location, body, headers,
                    schedule_time, create_time, dispatch_deadline, dispatch_count, response_count, first_attempt,
                    last_attempt, last_status, last_error, state, finish_time)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    task.queue, task.id, task.location, task.body, headers, task.scheduleTime.timeIntervalSince1970,
                    task.createTime.timeIntervalSince1970, task.dispatchDeadline?.seconds, task.dispatchCount,
                    task.responseCount, task.firstAttemptTime?.timeIntervalSince1970,
                    task.lastAttemptTime?.timeIntervalSince1970, task.lastResponseStatus, task.lastError,
                    task.state.rawValue, task.finishTime?.timeIntervalSince1970,
                ])
        }
    }

    /// Forgets the tasks finished before `time`: their ids are free again.
    func forgetTasks(finishedBefore time: Date) async throws {
        _ = try await write { transaction in
            try transaction.db.execute(sql: "DELETE FROM queued_task WHERE finish_time IS NOT NULL AND finish_time < ?",
                arguments: [time.timeIntervalSince1970])
        }
    }
}
