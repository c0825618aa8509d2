package llmtest

import "net/http"

// ServiceUnavailable answers 503, as a provider does during an outage.
func ServiceUnavailable() Reply {
	return Reply{Status: http.StatusServiceUnavailable, Content: "the model is overloaded"}
}
