package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"

	"github.com/checkup-dev/checkup/workers/analyzer"
)

// unit is one piece of work for the model: the prompt and how to read the answer.
type unit[T any] struct {
	stage     string
	schema    *schema
	messages  []openai.ChatCompletionMessage
	normalize func(T) (T, analyzer.Adjustments)
}

// run asks for u's answer and makes it valid: the answer is normalised and validated;
// an invalid one gets exactly one repair call, which sends the answer back with what
// is wrong with it, and is normalised and validated again. The Result's Adjustments
// are those of the answer kept. An answer still invalid
// after that is an error wrapping analyzer.ErrInvalidOutput. Retries of failed HTTP
// calls happen below, in complete, and are not repairs. The Result's Usage sums every
// completed call, also when run fails.
func run[T any](ctx context.Context, a *Analyzer, u unit[T]) (analyzer.Result[T], error) {
	var res analyzer.Result[T]
	answer, usage, err := a.complete(ctx, u.stage, false, u.schema, u.messages)
	res.Usage = res.Usage.Add(usage)
	if err != nil {
		return res, err
	}
	v, adj, problems := parseAnswer(answer, u.schema, u.normalize)
	if problems == nil {
		res.Value, res.Pass, res.Adjusted = v, analyzer.PassFirst, adj
		return res, nil
	}
	msgs, err := a.prompts.repair(u.messages, answer, problems, u.schema)
	if err != nil {
		return res, err
	}
	answer, usage, err = a.complete(ctx, u.stage, true, u.schema, msgs)
	res.Usage = res.Usage.Add(usage)
	if err != nil {
		return res, err
	}
	v, adj, problems = parseAnswer(answer, u.schema, u.normalize)
	if problems != nil {
		return res, fmt.Errorf("llm: %s: %w: %s", u.stage, analyzer.ErrInvalidOutput, strings.Join(problems, "; "))
	}
	res.Value, res.Pass, res.Adjusted = v, analyzer.PassRepaired, adj
	return res, nil
}
