package store

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/taskstate"
)

// Warning is a task warning as it is stored: its scope and message written by en, the
// English that report.json and the API show, and kept as catalog messages, which the
// task page and report.md write in the reader's language. A zero scope is none.
func Warning(en *locale.Localizer, task uuid.UUID, owner int64, stage taskstate.Stage, scope, message locale.Text) dbsqlc.InsertTaskWarningParams {
	return dbsqlc.InsertTaskWarningParams{
		TaskID: task, OwnerUserID: owner, Stage: stage,
		Scope: en.Text(scope), Message: en.Text(message),
		ScopeText: storedText(scope), MessageText: storedText(message),
	}
}

// storedText is t as a jsonb column keeps it: NULL for a zero Text, and for one that
// cannot be encoded (a number that is not finite), which then reads as its English.
func storedText(t locale.Text) json.RawMessage {
	if t.IsZero() {
		return nil
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return nil
	}
	return raw
}
