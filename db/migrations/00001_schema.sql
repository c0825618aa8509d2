-- +goose Up
-- The whole schema of Checkup. Every table that belongs to a task carries
-- owner_user_id and a composite foreign key to analysis_task(id, owner_user_id), so a
-- row can never point at another owner's task and every query can filter by owner.

CREATE TABLE app_user (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider         text        NOT NULL CHECK (provider <> ''),
    provider_user_id text        NOT NULL CHECK (provider_user_id <> ''),
    email            text        NOT NULL DEFAULT '',
    name             text        NOT NULL DEFAULT '',
    avatar_url       text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    last_login_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, provider_user_id)
);

CREATE TABLE user_session (
    token_hash   bytea PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id      bigint      NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_session_user_id ON user_session (user_id);
CREATE INDEX user_session_expires_at ON user_session (expires_at);

CREATE TABLE analysis_task (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner_user_id       bigint      NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    title               text        NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    status              text        NOT NULL DEFAULT 'pending' CHECK (status IN
                        ('pending', 'running', 'completed', 'partial', 'insufficient_data', 'failed', 'canceled')),
    stage               text        NOT NULL DEFAULT 'queued',
    progress_done       integer     NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    progress_total      integer     NOT NULL DEFAULT 0 CHECK (progress_total >= 0),
    -- attempt is the fencing token: every claim increments it, nothing ever lowers it.
    attempt             integer     NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    -- lost_count counts claims that took over a stale lease; a hand-back does not count,
    -- so TASK_MAX_ATTEMPTS limits crashes, not graceful restarts.
    lost_count          integer     NOT NULL DEFAULT 0 CHECK (lost_count >= 0),
    lease_owner         text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    claimed_at          timestamptz,
    heartbeat_at        timestamptz,
    finished_at         timestamptz,
    cancel_requested_at timestamptz,
    error               text        NOT NULL DEFAULT '',
    config              jsonb       NOT NULL DEFAULT '{}',
    funnel              jsonb,
    risk_summary        jsonb,
    llm_calls           integer     NOT NULL DEFAULT 0,
    prompt_tokens       bigint      NOT NULL DEFAULT 0,
    completion_tokens   bigint      NOT NULL DEFAULT 0,
    first_pass_valid    integer     NOT NULL DEFAULT 0,
    repaired            integer     NOT NULL DEFAULT 0,
    isolated            integer     NOT NULL DEFAULT 0,
    conversation_count  integer     NOT NULL DEFAULT 0,
    source_filename     text        NOT NULL DEFAULT '',
    source_format       text        NOT NULL DEFAULT '',
    source_bytes        bigint      NOT NULL DEFAULT 0,
    rerun_of            uuid,
    UNIQUE (id, owner_user_id),
    CHECK ((status IN ('pending', 'running')) = (finished_at IS NULL))
);
-- The owner's task list, newest first, keyset-paginated on (created_at, id).
CREATE INDEX analysis_task_owner_created ON analysis_task (owner_user_id, created_at DESC, id DESC);
-- The claim reads only these two small partial indexes; heartbeat_at is in no index,
-- so a heartbeat is a HOT update.
CREATE INDEX analysis_task_pending ON analysis_task (created_at) WHERE status = 'pending';
CREATE INDEX analysis_task_running ON analysis_task (created_at) WHERE status = 'running';
-- Retention deletes finished tasks oldest first.
CREATE INDEX analysis_task_finished_at ON analysis_task (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE task_conversation (
    task_id          uuid    NOT NULL,
    owner_user_id    bigint  NOT NULL,
    seq              integer NOT NULL CHECK (seq >= 1),
    external_id      text    NOT NULL,
    messages         jsonb   NOT NULL,
    metadata         jsonb,
    message_count    integer NOT NULL CHECK (message_count >= 0),
    content_hash     bytea,
    qc_status        text    NOT NULL DEFAULT 'pending' CHECK (qc_status IN
                     ('pending', 'kept', 'malformed', 'empty', 'too_short', 'duplicate')),
    qc_reason        text    NOT NULL DEFAULT '',
    risk_flags       jsonb   NOT NULL DEFAULT '[]',
    selected         boolean NOT NULL DEFAULT false,
    diagnosis        jsonb,
    diagnosis_status text    NOT NULL DEFAULT 'pending' CHECK (diagnosis_status IN
                     ('pending', 'done', 'isolated', 'skipped')),
    diagnosis_pass   text    CHECK (diagnosis_pass IN ('first_pass', 'repaired')),
    diagnosis_error  text    NOT NULL DEFAULT '',
    diagnosed_at     timestamptz,
    PRIMARY KEY (task_id, seq),
    UNIQUE (task_id, external_id),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
);

CREATE TABLE task_finding (
    task_id          uuid    NOT NULL,
    owner_user_id    bigint  NOT NULL,
    conversation_seq integer NOT NULL,
    idx              integer NOT NULL CHECK (idx >= 0),
    type             text    NOT NULL CHECK (type IN ('RISK', 'ACTION')),
    category         text    NOT NULL,
    title            text    NOT NULL,
    description      text    NOT NULL DEFAULT '',
    severity         integer NOT NULL CHECK (severity BETWEEN 1 AND 5),
    confidence       real    NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    priority_score   real    NOT NULL CHECK (priority_score BETWEEN 0 AND 100),
    evidence         jsonb   NOT NULL DEFAULT '[]',
    cluster_idx      integer,
    PRIMARY KEY (task_id, conversation_seq, idx),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
    FOREIGN KEY (task_id, conversation_seq) REFERENCES task_conversation (task_id, seq) ON DELETE CASCADE
);

CREATE TABLE task_cluster (
    task_id            uuid    NOT NULL,
    owner_user_id      bigint  NOT NULL,
    idx                integer NOT NULL CHECK (idx >= 0),
    type               text    NOT NULL CHECK (type IN ('RISK', 'ACTION')),
    category           text    NOT NULL,
    title              text    NOT NULL,
    conversation_seqs  integer[] NOT NULL,
    finding_count      integer NOT NULL,
    prevalence         real    NOT NULL CHECK (prevalence BETWEEN 0 AND 1),
    severity           real    NOT NULL,
    confidence         real    NOT NULL,
    priority_score     real    NOT NULL CHECK (priority_score BETWEEN 0 AND 100),
    -- The parts of priority_score, so the page can show how it was computed.
    priority_parts     jsonb   NOT NULL DEFAULT '{}',
    PRIMARY KEY (task_id, idx),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
);

CREATE TABLE task_action (
    task_id          uuid    NOT NULL,
    owner_user_id    bigint  NOT NULL,
    candidate_index  integer NOT NULL CHECK (candidate_index >= 0),
    cluster_idx      integer NOT NULL,
    status           text    NOT NULL CHECK (status IN ('done', 'failed')),
    rank             integer CHECK (rank >= 1),
    action           jsonb,
    error            text    NOT NULL DEFAULT '',
    PRIMARY KEY (task_id, candidate_index),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE,
    FOREIGN KEY (task_id, cluster_idx) REFERENCES task_cluster (task_id, idx) ON DELETE CASCADE
);
CREATE UNIQUE INDEX task_action_rank ON task_action (task_id, rank) WHERE rank IS NOT NULL;

CREATE TABLE task_warning (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id       uuid        NOT NULL,
    owner_user_id bigint      NOT NULL,
    stage         text        NOT NULL,
    scope         text        NOT NULL DEFAULT '',
    message       text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
);
CREATE INDEX task_warning_task ON task_warning (task_id, id);

-- LLM spend per task and stage; the task row holds the totals.
CREATE TABLE task_usage (
    task_id           uuid    NOT NULL,
    owner_user_id     bigint  NOT NULL,
    stage             text    NOT NULL,
    calls             integer NOT NULL DEFAULT 0,
    prompt_tokens     bigint  NOT NULL DEFAULT 0,
    completion_tokens bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, stage),
    FOREIGN KEY (task_id, owner_user_id) REFERENCES analysis_task (id, owner_user_id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE task_usage, task_warning, task_action, task_cluster, task_finding,
    task_conversation, analysis_task, user_session, app_user;
