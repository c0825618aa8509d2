package components

import "strconv"

// AgentPath is the page of one of the owner's agents.
func AgentPath(id int64) string { return "/agents/" + strconv.FormatInt(id, 10) }
