// Package taskstate is the vocabulary of a task's life: its status (the queue's state
// machine, docs/architecture.md#task-statuses) and the stage it is in; the words people
// read for them are the catalog's (db/locale, status.* and stage.*). It sits at the
// bottom, beside the tables that store them, so the queries' callers, the worker, the
// pipeline, the report, the metrics and the pages all speak the same typed words.
package taskstate

// Status is analysis_task.status.
type Status string

// The statuses: a task is pending until a worker claims it, running while one holds
// its lease, and then ends in one of the five terminal statuses.
const (
	Pending          Status = "pending"
	Running          Status = "running"
	Completed        Status = "completed"
	Partial          Status = "partial"
	InsufficientData Status = "insufficient_data"
	Failed           Status = "failed"
	Canceled         Status = "canceled"
)

// Statuses lists every status in the order of its life, for what reports each one
// (the metrics report zeros too, so a series never vanishes).
func Statuses() []Status {
	return []Status{Pending, Running, Completed, Partial, InsufficientData, Failed, Canceled}
}

// Terminal reports whether s is one of the five ends of a task: nothing will change
// it any more, so pages stop polling, and a handler must return one of them.
func (s Status) Terminal() bool {
	switch s {
	case Completed, Partial, InsufficientData, Failed, Canceled:
		return true
	}
	return false
}

// Concluded reports whether the diagnosis ran to its end, completed or with gaps: only
// then are its issues, Actions and failure drivers the whole answer.
func (s Status) Concluded() bool { return s == Completed || s == Partial }

// Stage is where a task is (analysis_task.stage) and which stage a warning or a
// model spend belongs to (task_warning.stage, task_usage.stage).
type Stage string

// The stages of the pipeline in the order they run, after Queued (not started yet);
// Upload and Settings name the warnings left before any stage ran.
const (
	Queued     Stage = "queued"
	Upload     Stage = "upload"
	Settings   Stage = "settings"
	Quality    Stage = "quality"
	Risk       Stage = "risk"
	Diagnosis  Stage = "diagnosis"
	Learning   Stage = "learning"
	Clustering Stage = "clustering"
	Actions    Stage = "actions"
	Finishing  Stage = "finishing"
)

// Step numbers the stage in the pipeline's run: it is step n of the run's of steps
// (Quality is 1 of 6), and n is 0 for a stage that is not a step (Queued, Upload,
// Settings).
func (s Stage) Step() (n, of int) {
	steps := []Stage{Quality, Risk, Diagnosis, Learning, Clustering, Actions, Finishing}
	for i, step := range steps {
		if s == step {
			return i + 1, len(steps)
		}
	}
	return 0, len(steps)
}

// After reports whether s is a later step of the pipeline's run than t: a task's
// stage only moves forward, so an attempt that finds it after t knows t concluded.
func (s Stage) After(t Stage) bool {
	n, _ := s.Step()
	m, _ := t.Step()
	return n > m
}

// Kind is what a task row of the queue does (analysis_task.kind): a diagnosis of an
// upload, which its owner sees, or the training of an agent's failure detector and the
// scoring of its runs again, which the queue runs like any other unit of work and the
// pages never list.
type Kind string

// The kinds of task.
const (
	KindDiagnosis Kind = "diagnosis"
	KindLearning  Kind = "learning"
)
