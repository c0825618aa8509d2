package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/app/auth/authtest"
	"github.com/checkup-dev/checkup/app/config"
	"github.com/checkup-dev/checkup/app/web"
	"github.com/checkup-dev/checkup/db/dbsqlc"
	"github.com/checkup-dev/checkup/db/dbtest"
	"github.com/checkup-dev/checkup/db/store"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/db/transcript/transcripttest"
	"github.com/checkup-dev/checkup/workers"
	"github.com/checkup-dev/checkup/workers/offline"
	"github.com/checkup-dev/checkup/workers/pipeline"
	"github.com/checkup-dev/checkup/workers/workertest"
)

// loopBundle is a real server and an offline worker on a database of the test's own
// (the worker claims every task in it), with two signed-in users: the PM's loop reads
// finished diagnoses.
type loopBundle struct {
	pool  *pgxpool.Pool
	url   string
	store *store.Store
	alice *authtest.Client
	bob   *authtest.Client
}

func setupLoop(t *testing.T) loopBundle {
	t.Helper()
	pool, _ := dbtest.Isolated(t)
	cfg, _, err := config.Load(func(string) string { return "" })
	require.NoError(t, err)
	srv := web.New(web.Deps{Config: cfg, Pool: pool, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	p := pipeline.New(pool, offline.New(offline.Options{}), workertest.Options(pipeline.Options{}))
	workertest.StartWorker(t, pool, p, workers.Config{Poll: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	return loopBundle{
		pool: pool, url: ts.URL, store: store.New(pool),
		alice: authtest.SignIn(t, pool, ts.URL, "alice-loop@example.com"),
		bob:   authtest.SignIn(t, pool, ts.URL, "bob-loop@example.com"),
	}
}

// diagnose stores who's task of convs as an upload does and waits for the worker to
// finish it.
func (b loopBundle) diagnose(t *testing.T, who *authtest.Client, title string, convs []transcript.Conversation) uuid.UUID {
	t.Helper()
	id := workertest.CreateTask(t, b.store, who.Owner(), store.NewTask{Title: title}, convs)
	b.waitFinished(t, who, id)
	return id
}

// waitFinished waits for who's task id to finish, and requires it completed.
func (b loopBundle) waitFinished(t *testing.T, who *authtest.Client, id uuid.UUID) {
	t.Helper()
	var task dbsqlc.AnalysisTask
	workertest.WaitFor(t, 2*time.Minute, "the diagnosis to finish", func() bool {
		var err error
		task, err = b.store.Task(context.Background(), id, who.Owner())
		require.NoError(t, err)
		return task.FinishedAt != nil
	})
	require.EqualValues(t, "completed", task.Status, task.Error)
}

// loopSample is the airline sample with its outcome labels, and eight short Chinese
// support chats, four of which ask for a refund (退款).
func loopSample(t *testing.T) []transcript.Conversation {
	t.Helper()
	var convs []transcript.Conversation
	for _, l := range transcripttest.LabelledSample(t) {
		c := l.Conversation
		c.Label = transcript.LabelSucceeded
		if !l.Success {
			c.Label = transcript.LabelFailed
		}
		convs = append(convs, c)
	}
	asks := []string{"我想申请退款，订单还没发货", "请帮我查一下物流", "退款什么时候到账？", "我要转人工客服", "这个商品可以退款吗", "怎么修改收货地址", "我要退款！已经等了三天", "发票怎么开"}
	for i, ask := range asks {
		label := transcript.LabelSucceeded
		if i%3 == 0 {
			label = transcript.LabelFailed
		}
		convs = append(convs, transcript.Conversation{ID: fmt.Sprintf("zh-%d", i+1), Label: label, Messages: []transcript.Message{
			{Role: transcript.RoleSystem, Content: "你是网店的客服助手。"},
			{Role: transcript.RoleUser, Content: ask},
			{Role: transcript.RoleAssistant, Content: "好的，我来帮您查询。", ToolCalls: []transcript.ToolCall{{ID: "c1", Name: "query_order", Arguments: `{}`}}},
			{Role: transcript.RoleTool, ToolCallID: "c1", Content: `{"status": "已付款"}`},
			{Role: transcript.RoleAssistant, Content: fmt.Sprintf("您的订单状态是已付款。还有什么可以帮您？（%d）", i+1)},
			{Role: transcript.RoleUser, Content: "没有了，谢谢"},
		}})
	}
	return convs
}
