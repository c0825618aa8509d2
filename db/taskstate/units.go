package taskstate

// QCStatus is task_conversation.qc_status: pending until the quality checks ran, then
// kept, or the first step of the funnel that set the conversation aside.
type QCStatus string

// The quality verdicts, pending first, then the funnel's steps in the order they apply.
const (
	QCPending   QCStatus = "pending"
	QCMalformed QCStatus = "malformed" // the transcript contradicts itself
	QCEmpty     QCStatus = "empty"     // no user or no assistant turn
	QCTooShort  QCStatus = "too_short" // fewer user and assistant turns than the checks ask
	QCDuplicate QCStatus = "duplicate" // same normalised content as an earlier conversation
	QCKept      QCStatus = "kept"      // part of the analysed population
)

// Checked reports whether the quality checks have judged the conversation, kept or
// set aside.
func (s QCStatus) Checked() bool { return s != QCPending }

// DiagnosisStatus is task_conversation.diagnosis_status: pending until its diagnosis
// unit ran, then done, isolated (the analyzer's answer could not be used) or skipped
// (not chosen, or set aside by the quality checks).
type DiagnosisStatus string

// The diagnosis states of a conversation.
const (
	DiagnosisPending  DiagnosisStatus = "pending"
	DiagnosisDone     DiagnosisStatus = "done"
	DiagnosisIsolated DiagnosisStatus = "isolated"
	DiagnosisSkipped  DiagnosisStatus = "skipped"
)

// ActionStatus is task_action.status: whether a candidate cluster's Action was written
// or its call failed.
type ActionStatus string

// The two ends of an Action's unit.
const (
	ActionDone   ActionStatus = "done"
	ActionFailed ActionStatus = "failed"
)

// Written reports whether the Action was written: only a written Action has a rank.
func (s ActionStatus) Written() bool { return s == ActionDone }
