-- +goose Up
-- An owner's rule of expected behaviour is about one agent: what the retail agent is
-- expected to do says nothing of the airline agent, and a mark made on one must not
-- hide the other's failures. agent_id is the agent of the diagnosis the rule was made
-- on; NULL applies it to all the owner's agents, as the owner may choose. The rules
-- made before were made on a diagnosis that belongs to an agent: they keep to it; one
-- whose diagnosis is gone keeps applying to every agent, as it did.
ALTER TABLE expected_rule
    ADD COLUMN agent_id bigint,
    ADD FOREIGN KEY (agent_id, owner_user_id) REFERENCES agent (id, owner_user_id) ON DELETE CASCADE;
UPDATE expected_rule r SET agent_id = t.agent_id
FROM analysis_task t
WHERE t.id = r.source_task_id AND t.owner_user_id = r.owner_user_id;
-- One rule per issue and agent, and one for all agents (agent ids start at 1).
ALTER TABLE expected_rule DROP CONSTRAINT expected_rule_owner_user_id_type_category_normal_title_key;
CREATE UNIQUE INDEX expected_rule_issue ON expected_rule (owner_user_id, (coalesce(agent_id, 0)), type, category, normal_title);

-- +goose Down
-- Without agents a rule applies to all of them again: of one issue's rules the one for
-- all agents stays, else the newest.
DELETE FROM expected_rule r
WHERE EXISTS (SELECT 1 FROM expected_rule o
              WHERE o.owner_user_id = r.owner_user_id AND o.type = r.type AND o.category = r.category
                AND o.normal_title = r.normal_title AND o.id <> r.id
                AND (o.agent_id IS NULL, o.created_at, o.id) > (r.agent_id IS NULL, r.created_at, r.id));
DROP INDEX expected_rule_issue;
ALTER TABLE expected_rule ADD CONSTRAINT expected_rule_owner_user_id_type_category_normal_title_key
    UNIQUE (owner_user_id, type, category, normal_title);
ALTER TABLE expected_rule DROP COLUMN agent_id;
