package db_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ownerExemptPrefixes is the allow-list of queries that may touch an owned table
// without owner_user_id in their WHERE clause. A query is exempt only when its name
// starts with one of these AND it carries a line `-- owner-exempt: <reason>`.
var ownerExemptPrefixes = []string{
	"Claim",        // the worker's claim: it takes the next task of any owner, and every later write is fenced by the owner it returns
	"Maintenance",  // operator and housekeeping reads that must see every owner's tasks
	"Purge",        // retention: deleting finished tasks (or expired rows) of every owner
	"Authenticate", // a credential looked up before any owner is known: the owner it returns scopes the request
}

// TestEveryQueryOnAnOwnedTableFiltersByOwner reads db/queries/*.sql and fails on any
// query that touches analysis_task or a task_* table without owner_user_id compared to
// a parameter in a WHERE clause (or, for an INSERT ... VALUES, given as a parameter),
// unless it is in the allow-list above.
func TestEveryQueryOnAnOwnedTableFiltersByOwner(t *testing.T) {
	t.Parallel()
	owned := ownedTables(t, "migrations")
	for _, table := range []string{"analysis_task", "task_conversation", "task_finding", "task_cluster", "task_action", "task_warning"} {
		require.Contains(t, owned, table, "the migrations define the owned tables")
	}
	queries := readQueries(t, "queries")
	require.NotEmpty(t, queries)
	checked, exempt := 0, 0
	for _, q := range queries {
		verdict := checkOwnership(q, owned)
		if verdict.exempt {
			exempt++
			t.Logf("owner-exempt %s (%s): %s", q.name, q.file, q.exemptReason)
		}
		if verdict.touches {
			checked++
		}
		if verdict.problem != "" {
			t.Errorf("%s: query %s %s", q.file, q.name, verdict.problem)
		}
	}
	t.Logf("%d queries, %d on owned tables %v, %d exempt", len(queries), checked, owned, exempt)
}

// TestOwnershipCheckCatchesWhatItShould proves the check itself on small queries.
func TestOwnershipCheckCatchesWhatItShould(t *testing.T) {
	t.Parallel()
	owned := []string{"analysis_task", "task_warning"}
	for _, c := range []struct {
		name, sql string
		ok        bool
	}{
		{"GetTask", "SELECT * FROM analysis_task WHERE id = @id AND owner_user_id = @owner_user_id", true},
		{"GetTaskAliased", "SELECT * FROM analysis_task t WHERE t.id = $1 AND t.owner_user_id = $2", true},
		{"ParamFirst", "SELECT 1 FROM analysis_task WHERE @owner::bigint = owner_user_id", true},
		{"SqlcArg", "DELETE FROM analysis_task WHERE id = sqlc.arg(id) AND owner_user_id = sqlc.arg(owner)", true},
		{"InParens", "UPDATE analysis_task SET title = @t WHERE (id = @id AND owner_user_id = @o)", true},
		{"Subquery", "UPDATE task_warning SET message = '' WHERE task_id IN (SELECT id FROM analysis_task WHERE owner_user_id = @o)", true},
		{"InsertValues", "INSERT INTO task_warning (task_id, owner_user_id, message) VALUES (@task_id, @owner_user_id, @message)", true},
		{"OtherTable", "SELECT * FROM app_user WHERE id = @id", true},
		{"TaskIDColumnOnly", "SELECT * FROM app_user WHERE task_id = @id", true},
		{"NoOwner", "SELECT * FROM analysis_task WHERE id = @id", false},
		{"NoWhere", "SELECT count(*) FROM analysis_task", false},
		{"OwnerOnlySelected", "SELECT owner_user_id FROM analysis_task WHERE id = @id", false},
		{"OwnerNotAParameter", "SELECT * FROM analysis_task WHERE id = @id AND owner_user_id = owner_user_id", false},
		{"OwnerNotNull", "SELECT * FROM analysis_task WHERE id = @id AND owner_user_id IS NOT NULL", false},
		{"OwnerInJoinOnly", "SELECT * FROM analysis_task a JOIN task_warning w ON w.owner_user_id = @o WHERE a.id = @id", false},
		{"OwnerInStringOnly", "SELECT * FROM analysis_task WHERE title = 'owner_user_id = @o'", false},
		{"OwnerInCommentOnly", "SELECT * FROM analysis_task -- owner_user_id = @o\nWHERE id = @id", false},
		{"InsertOwnerFromSubquery", "INSERT INTO task_warning (task_id, owner_user_id, message) VALUES (@task_id, (SELECT owner_user_id FROM analysis_task WHERE id = @task_id), @m)", false},
		{"InsertSelectWithoutOwner", "INSERT INTO task_warning (task_id, owner_user_id, message) SELECT id, owner_user_id, '' FROM analysis_task WHERE id = @id", false},
		{"ClaimTaskWithoutReason", "SELECT id FROM analysis_task WHERE status = 'pending'", false},
		{"ClaimTaskWithReason", "-- owner-exempt: the worker claims any owner's task\nSELECT id FROM analysis_task WHERE status = 'pending'", true},
		{"ListAllWithReason", "-- owner-exempt: convenient\nSELECT id FROM analysis_task", false},
		{"PurgeWithEmptyReason", "-- owner-exempt:\nDELETE FROM analysis_task WHERE finished_at < now()", false},
	} {
		q := parseQuery("test.sql", c.name, c.sql)
		v := checkOwnership(q, owned)
		require.Equal(t, c.ok, v.problem == "", "%s: %s", c.name, v.problem)
	}
}

// query is one sqlc query of a file under db/queries.
type query struct {
	file, name   string
	tokens       []string // the SQL without comments and string literals
	exemptReason string   // from `-- owner-exempt: <reason>`
	exemptMarked bool
}

var nameLine = regexp.MustCompile(`(?m)^--\s*name:\s*(\w+)\s+:\w+.*$`)

func readQueries(t *testing.T, dir string) []query {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	require.NoError(t, err)
	var out []query
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text := string(b)
		marks := nameLine.FindAllStringSubmatchIndex(text, -1)
		for i, m := range marks {
			end := len(text)
			if i+1 < len(marks) {
				end = marks[i+1][0]
			}
			out = append(out, parseQuery(filepath.Base(f), text[m[2]:m[3]], text[m[1]:end]))
		}
	}
	return out
}

var (
	exemptLine = regexp.MustCompile(`(?m)^\s*--\s*owner-exempt:(.*)$`)
	comment    = regexp.MustCompile(`--[^\n]*`)
	literal    = regexp.MustCompile(`'(?:[^']|'')*'`)
	token      = regexp.MustCompile(`(?i)sqlc\.n?arg\s*\(\s*'?\w+'?\s*\)|@\w+|\$\d+|[a-z_]\w*(?:\.[a-z_]\w*)?|::|\S`)
)

func parseQuery(file, name, sql string) query {
	q := query{file: file, name: name}
	if m := exemptLine.FindStringSubmatch(sql); m != nil {
		q.exemptMarked, q.exemptReason = true, strings.TrimSpace(m[1])
	}
	sql = literal.ReplaceAllString(comment.ReplaceAllString(sql, " "), "''")
	q.tokens = token.FindAllString(sql, -1)
	return q
}

// verdict is the outcome of checking one query.
type verdict struct {
	touches bool   // it reads or writes an owned table
	exempt  bool   // it is allowed to go without the owner
	problem string // why it fails the check, or ""
}

func checkOwnership(q query, owned []string) verdict {
	var v verdict
	allowListed := slices.ContainsFunc(ownerExemptPrefixes, func(p string) bool { return strings.HasPrefix(q.name, p) })
	if q.exemptMarked && (!allowListed || q.exemptReason == "") {
		v.problem = "has an owner-exempt line but is not in the test's allow-list (" +
			strings.Join(ownerExemptPrefixes, ", ") + ") or gives no reason"
		return v
	}
	for _, tok := range q.tokens {
		if slices.Contains(owned, strings.ToLower(tok)) {
			v.touches = true
		}
	}
	switch {
	case !v.touches:
	case q.exemptMarked:
		v.exempt = true
	case ownerInWhere(q.tokens):
	case !hasKeyword(q.tokens, "where") && insertsOwnerParam(q.tokens):
	default:
		v.problem = "touches an owned table without `owner_user_id = @param` in its WHERE clause; " +
			"add it, or (worker claim and maintenance queries only) name it with an allow-listed prefix and add `-- owner-exempt: <reason>`"
	}
	return v
}

// clauseKeywords start a clause; the owner comparison counts only in a WHERE clause.
var clauseKeywords = []string{"select", "from", "where", "join", "on", "set", "values", "returning", "group", "order",
	"having", "limit", "offset", "window", "union", "insert", "update", "delete", "with", "for", "using", "into"}

// ownerInWhere reports whether a WHERE clause, at any depth, compares owner_user_id
// with a parameter. A parenthesis keeps the clause it opens in until a keyword inside
// starts another (a subquery).
func ownerInWhere(tokens []string) bool {
	clause := []string{""}
	for i, tok := range tokens {
		low := strings.ToLower(tok)
		switch {
		case tok == "(":
			clause = append(clause, clause[len(clause)-1])
		case tok == ")" && len(clause) > 1:
			clause = clause[:len(clause)-1]
		case slices.Contains(clauseKeywords, low):
			clause[len(clause)-1] = low
		case clause[len(clause)-1] == "where" && isOwnerColumn(tok) && comparedToParam(tokens, i):
			return true
		}
	}
	return false
}

func isOwnerColumn(tok string) bool {
	low := strings.ToLower(tok)
	return low == "owner_user_id" || strings.HasSuffix(low, ".owner_user_id")
}

// comparedToParam reports whether tokens[i] is one side of `=` whose other side is a
// parameter (optionally cast: @owner::bigint).
func comparedToParam(tokens []string, i int) bool {
	if i+2 < len(tokens) && tokens[i+1] == "=" && isParam(tokens[i+2]) {
		return true
	}
	if i >= 2 && tokens[i-1] == "=" {
		k := i - 2
		if k >= 2 && tokens[k-1] == "::" {
			k -= 2
		}
		return isParam(tokens[k])
	}
	return false
}

func isParam(tok string) bool {
	low := strings.ToLower(tok)
	return strings.HasPrefix(low, "@") || strings.HasPrefix(low, "$") || strings.HasPrefix(low, "sqlc.")
}

func hasKeyword(tokens []string, kw string) bool {
	return slices.ContainsFunc(tokens, func(t string) bool { return strings.EqualFold(t, kw) })
}

// insertsOwnerParam reports whether an INSERT ... (columns) VALUES (...) gives
// owner_user_id as a parameter: the composite foreign key then ties every child row to
// a task of that owner.
func insertsOwnerParam(tokens []string) bool {
	into := slices.IndexFunc(tokens, func(t string) bool { return strings.EqualFold(t, "into") })
	if into < 0 || into+2 >= len(tokens) || tokens[into+2] != "(" {
		return false
	}
	columns, after := topLevelItems(tokens, into+2)
	col := slices.IndexFunc(columns, func(item []string) bool { return len(item) == 1 && isOwnerColumn(item[0]) })
	if col < 0 || after+1 >= len(tokens) || !strings.EqualFold(tokens[after], "values") || tokens[after+1] != "(" {
		return false
	}
	values, _ := topLevelItems(tokens, after+1)
	if col >= len(values) {
		return false
	}
	v := values[col]
	return isParam(v[0]) && (len(v) == 1 || (len(v) == 3 && v[1] == "::"))
}

// topLevelItems splits the parenthesised list opening at tokens[open] on its top-level
// commas and returns the items and the index after the closing parenthesis.
func topLevelItems(tokens []string, open int) ([][]string, int) {
	var items [][]string
	var cur []string
	depth := 0
	for i := open; i < len(tokens); i++ {
		switch tok := tokens[i]; {
		case tok == "(":
			depth++
			if depth > 1 {
				cur = append(cur, tok)
			}
		case tok == ")":
			depth--
			if depth == 0 {
				return append(items, cur), i + 1
			}
			cur = append(cur, tok)
		case tok == "," && depth == 1:
			items, cur = append(items, cur), nil
		default:
			cur = append(cur, tok)
		}
	}
	return items, len(tokens)
}

var (
	createTable = regexp.MustCompile(`(?is)CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\((.*?)\n\);`)
	addOwner    = regexp.MustCompile(`(?is)ALTER\s+TABLE\s+(?:ONLY\s+)?(\w+)\s+ADD\s+(?:COLUMN\s+)?(?:IF\s+NOT\s+EXISTS\s+)?owner_user_id\b`)
	ownerColumn = regexp.MustCompile(`(?i)\bowner_user_id\b`)
)

// ownedTables lists the tables the migrations give an owner: analysis_task, every
// task_* table, and any table with an owner_user_id column.
func ownedTables(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	require.NoError(t, err)
	var owned []string
	add := func(name string) {
		if name = strings.ToLower(name); !slices.Contains(owned, name) {
			owned = append(owned, name)
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text := comment.ReplaceAllString(string(b), "")
		for _, m := range createTable.FindAllStringSubmatch(text, -1) {
			name := strings.ToLower(m[1])
			if name == "analysis_task" || strings.HasPrefix(name, "task_") || ownerColumn.MatchString(m[2]) {
				add(name)
			}
		}
		for _, m := range addOwner.FindAllStringSubmatch(text, -1) {
			add(m[1])
		}
	}
	return owned
}
