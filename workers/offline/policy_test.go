package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/locale/localetest"
	"github.com/checkup-dev/checkup/workers/analyzer"
)

// A short policy in the shape agents are given: what the agent may do, what it must
// refuse and when it hands over.
const shopPolicy = `# Store policy

- You can help users cancel pending orders or return delivered items.
- Gift cards cannot be refunded or exchanged for cash.
- An order can only be cancelled while its status is pending.
- You should transfer the user to a human agent if and only if the request cannot be handled within the scope of your actions.
- Before taking consequential actions, list the action details and obtain explicit user confirmation (yes).
- At the beginning of the conversation, you have to authenticate the user identity by locating their user id via email.`

func TestRefusalThePolicyRequiresIsExpected(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys(shopPolicy), u("Can I get my gift card refunded as cash?"),
		as("I'm sorry, but I can't do that: gift cards cannot be refunded or exchanged for cash."), u("Oh well, thanks."))
	refusals := only(d, "refusal")
	require.Len(t, refusals, 1)
	f := refusals[0]
	require.True(t, f.Expected)
	require.Equal(t, "Gift cards cannot be refunded or exchanged for cash.", f.Policy)
	require.Contains(t, f.Description, "as its policy says")
	require.Zero(t, analyzer.MaxSeverity(d), "expected behaviour never raises the severity")
	require.Zero(t, d.FailureScore)
	require.NotContains(t, analyzer.CitedTurns(d), 3, "nor is it where things went wrong")
}

// TestAConditionIsNotADecline: "if you're unable to…" asks the user for something and
// declines nothing, in English or Chinese; a decline after it in the same message is
// still found.
func TestAConditionIsNotADecline(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	for _, ask := range []string{
		"Please share the order id. If you're unable to find your gift card, the confirmation email has its number.",
		"If your gift card cannot be found, I can look it up by its order.",
		"如果您无法提供订单号，可以提供下单时的手机号。",
	} {
		d := diagnose(t, a, sys(shopPolicy), u("Where is my order?"), as(ask), u("Here it is: W123."), as("Thanks, it ships today."))
		require.Empty(t, only(d, "refusal"), ask)
	}
	d := diagnose(t, a, sys(shopPolicy), u("Can I get my gift card refunded as cash?"),
		as("If you're unable to use it, I understand, but gift cards cannot be refunded or exchanged for cash."), u("Oh well."))
	refusals := only(d, "refusal")
	require.Len(t, refusals, 1)
	require.Equal(t, "Gift cards cannot be refunded or exchanged for cash.", refusals[0].Policy)
	require.Contains(t, refusals[0].Evidence[0].Quote, "gift cards cannot be refunded")
}

func TestRefusalNoPolicySentenceCallsForIsAFinding(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys(shopPolicy), u("Can you tell me when my order ships?"),
		as("I'm sorry, but I can't help with shipping dates."), u("That's odd. Bye."))
	refusals := only(d, "refusal")
	require.Len(t, refusals, 1)
	require.False(t, refusals[0].Expected)
	require.Empty(t, refusals[0].Policy)
	require.Contains(t, refusals[0].Description, "No sentence of the agent's policy calls for it.")
	require.Equal(t, 2, analyzer.MaxSeverity(d))

	// Without any policy a refusal is a finding as before.
	bare := diagnose(t, a, u("Can I get my gift card refunded as cash?"), as("I'm sorry, but I can't do that."), u("ok"))
	require.False(t, only(bare, "refusal")[0].Expected)
}

func TestHandoffThePolicyCallsForIsExpected(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys(shopPolicy), u("I want to sue you over my broken lamp."),
		as("I'm unable to help with legal matters; that is outside what I can handle."), u("Then get me someone."),
		toolCall("t1", "transfer_to_human_agents", `{"summary":"legal complaint"}`), res("t1", "Transfer successful"))
	handoffs := only(d, "human_handoff")
	require.Len(t, handoffs, 1)
	require.True(t, handoffs[0].Expected)
	require.Contains(t, handoffs[0].Policy, "transfer the user to a human agent")

	// A handoff with no decline before it, and nothing the policy names, is a finding.
	d = diagnose(t, a, sys(shopPolicy), u("Where is my order W1?"),
		toolCall("t1", "transfer_to_human_agents", `{"summary":"order status"}`), res("t1", "Transfer successful"))
	require.False(t, only(d, "human_handoff")[0].Expected)
}

func TestLeavingAfterAPolicyRefusalIsNotAbandonment(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, sys(shopPolicy), u("Refund my gift card in cash please."),
		as("Unfortunately gift cards cannot be refunded or exchanged for cash."), u("Never mind then, I'll look elsewhere."))
	require.Empty(t, only(d, "unresolved"))
	d = diagnose(t, a, sys(shopPolicy), u("Cancel order W1 please."), as("Could you confirm the order id?"), u("Never mind, I'll come back."))
	require.Len(t, only(d, "unresolved"), 1)
}

func TestActingBeforeAuthenticationBreaksAPolicyThatAsksForIt(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	early := diagnose(t, a, sys(shopPolicy), u("How many lamps do you sell?"),
		toolCall("c1", "list_products", `{}`), res("c1", `{"lamps": 3}`), as("We sell 3 lamps."), u("Thanks"))
	f := only(early, "policy_violation")
	require.Len(t, f, 1)
	require.Equal(t, []analyzer.Evidence{{Turn: 3, Quote: `list_products({})`}, {Turn: 2, Quote: "How many lamps do you sell?"},
		{Turn: 5, Quote: "We sell 3 lamps."}}, f[0].Evidence, "the call, the request it acted on, and what the unverified user was told")
	require.Contains(t, f[0].Description, "authenticate the user identity")
	require.NotContains(t, f[0].Description, "It also says", "no sentence makes product information wait for the check")
	zh := only(diagnose(t, a, sys("你是商店客服。对话开始时，首先要通过邮箱核实身份。"), u("你们卖几种台灯？"),
		toolCall("c1", "list_products", `{}`), res("c1", `{"lamps": 3}`), as("3 种。"), u("谢谢")), "policy_violation")
	require.Len(t, zh, 1)
	require.Equal(t, []analyzer.Evidence{{Turn: 3, Quote: `list_products({})`}, {Turn: 2, Quote: "你们卖几种台灯？"},
		{Turn: 5, Quote: "3 种。"}}, zh[0].Evidence)

	verified := diagnose(t, a, sys(shopPolicy), u("How many lamps do you sell? I'm ann@example.com"),
		toolCall("c1", "find_user_id_by_email", `{"email":"ann@example.com"}`), res("c1", "ann_1"),
		toolCall("c2", "list_products", `{}`), res("c2", `{"lamps": 3}`), as("We sell 3 lamps."), u("Thanks"))
	require.Empty(t, only(verified, "policy_violation"))

	noRule := diagnose(t, a, sys("You are a helpful store assistant."), u("How many lamps?"),
		toolCall("c1", "list_products", `{}`), res("c1", `{"lamps": 3}`), as("3."), u("Thanks"))
	require.Empty(t, only(noRule, "policy_violation"), "only a policy that asks for it is held against the agent")
}

// TestTheSentenceThatMakesAnActWaitForTheCheckIsQuoted: a policy that makes what the
// call did (product information) wait for the identity check says why acting first
// matters, though the call reads no one's account; the finding quotes it, in English
// and Chinese, and a tool the sentence does not name gets no such quote.
func TestTheSentenceThatMakesAnActWaitForTheCheckIsQuoted(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	gated := shopPolicy + "\n- Once the user has been authenticated, you can provide the user with information about order, product, profile information."
	d := only(diagnose(t, a, sys(gated), u("How many lamps do you sell?"),
		toolCall("c1", "list_all_product_types", `{}`), res("c1", `{"Lamp": "1"}`), as("We sell lamps."), u("Thanks")), "policy_violation")
	require.Len(t, d, 1)
	require.Contains(t, d[0].Description, "It also says: “Once the user has been authenticated, you can provide the user with information about order, product, profile information.”")

	other := only(diagnose(t, a, sys(gated), u("What's the weather?"),
		toolCall("c1", "get_weather", `{}`), res("c1", `sunny`), as("Sunny."), u("Thanks")), "policy_violation")
	require.Len(t, other, 1)
	require.NotContains(t, other[0].Description, "It also says")

	require.Contains(t, localetest.Chinese(t).Text(d[0].Words.Description),
		"政策还写道：“Once the user has been authenticated, you can provide the user with information about order, product, profile information.”")

	// A Chinese policy names the tool it makes wait for the check.
	zhPolicy := "你是商店客服。\n- 对话开始时，首先要通过邮箱核实身份。\n- 核实身份之后，才能调用 get_order_details 查询订单。"
	zh := only(diagnose(t, a, sys(zhPolicy), u("我的订单 W1 到哪了？"),
		toolCall("c1", "get_order_details", `{"order_id":"W1"}`), res("c1", `{"status": "shipped"}`), as("已发货。"), u("谢谢")), "policy_violation")
	require.Len(t, zh, 1)
	require.Contains(t, localetest.Chinese(t).Text(zh[0].Words.Description), "政策还写道：“核实身份之后，才能调用 get_order_details 查询订单。”")
}

func TestPolicyIsReadInChinese(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	policy := "你是商城客服。\n- 礼品卡不能退款或兑换现金。\n- 如果用户的请求超出你的处理范围，请转人工客服。"
	d := diagnose(t, a, sys(policy), u("礼品卡可以退款吗？"), as("抱歉，礼品卡不能退款或兑换现金。"), u("好吧"))
	refusals := only(d, "refusal")
	require.Len(t, refusals, 1)
	require.True(t, refusals[0].Expected)
	require.Equal(t, "礼品卡不能退款或兑换现金。", refusals[0].Policy)
}

func TestAShortAcknowledgementClosesAChat(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	d := diagnose(t, a, u("我的订单到哪了"), as("您的订单已发货，预计明天送达。"), u("好的"))
	require.Empty(t, only(d, "unresolved"))
	d = diagnose(t, a, u("我的订单到哪了"), as("您的订单已发货，预计明天送达。"), u("那如果明天还没到怎么办？"))
	require.Len(t, only(d, "unresolved"), 1, "a question left hanging is no acknowledgement")
}

// TestFrustrationAtADeclineThePolicyRequires: a user upset by a decline the policy calls
// for is the policy's cost, reported with the expected refusal, not frustration the
// agent caused; the same words after a reply that declines nothing still count, in
// English and in Chinese.
func TestFrustrationAtADeclineThePolicyRequires(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	zhPolicy := "你是商城客服。\n- 礼品卡不能退款或兑换现金。"
	for _, c := range []struct{ policy, ask, decline, other, upset string }{
		{shopPolicy, "Can I get my gift card refunded as cash?", "I'm sorry, but gift cards cannot be refunded or exchanged for cash.",
			"Let me check your gift card balance.", "What the hell? This is ridiculous!"},
		{zhPolicy, "礼品卡可以退款吗？", "抱歉，礼品卡不能退款或兑换现金。", "我帮您查一下礼品卡余额。", "太离谱了，真没用"},
	} {
		declined := diagnose(t, a, sys(c.policy), u(c.ask), as(c.decline), u(c.upset), as(c.decline))
		require.Empty(t, only(declined, "user_frustration"), c.upset)
		require.True(t, only(declined, "refusal")[0].Expected, c.decline)

		other := diagnose(t, a, sys(c.policy), u(c.ask), as(c.other), u(c.upset), as(c.other))
		require.Len(t, only(other, "user_frustration"), 1, "%s after a reply that declines nothing", c.upset)
	}
}

// TestALookUpOfNothingTheUserGaveReadsNoAccount: acting before the check with a call
// whose arguments hold nothing the user said (a catalogue) says no account was read,
// in either language, and its Action asks first whether such questions may come
// before the check; a look-up of the user's own order says nothing of the kind.
func TestALookUpOfNothingTheUserGaveReadsNoAccount(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	catalogue := only(diagnose(t, a, sys(shopPolicy), u("How many lamps do you sell?"),
		toolCall("c1", "list_products", `{}`), res("c1", `{"lamps": 3}`), as("We sell 3 lamps."), u("Thanks")), "policy_violation")
	require.Len(t, catalogue, 1)
	require.Contains(t, catalogue[0].Description, "list_products names nothing the user gave (no account, order or email), so no account was read; the policy still asks for the check first.")
	require.Contains(t, localetest.Chinese(t).Text(catalogue[0].Words.Description), "list_products 的参数不涉及用户提供的任何信息（没有账户、订单或邮箱），所以没有读取任何账户；但政策仍要求先完成验证。")

	order := only(diagnose(t, a, sys(shopPolicy), u("Where is my order #W1?"),
		toolCall("c1", "get_order_details", `{"order_id": "#W1"}`), res("c1", `{"status": "shipped"}`), as("It has shipped."), u("Thanks")), "policy_violation")
	require.Len(t, order, 1)
	require.NotContains(t, order[0].Description, "no account was read")

	write := func(f analyzer.Finding) analyzer.Action {
		b := brief("policy_violation", ruleUnauthenticated.spec().title)
		b.Descriptions, b.DescriptionTexts = []string{f.Description}, []locale.Text{f.Words.Description}
		r, err := a.WriteAction(context.Background(), b)
		require.NoError(t, err)
		return r.Value
	}
	settle := write(catalogue[0])
	require.Equal(t, "Say whether questions that need no account may be answered before the identity check", settle.Title)
	require.Contains(t, settle.Recommendation[0], "If questions like the example's are meant to be answered before the check")
	require.True(t, strings.HasPrefix(settle.Recommendation[1], "If they are not, make identity verification the agent's first step"), "the other way, said as the alternative: %s", settle.Recommendation[1])
	require.True(t, strings.HasPrefix(localetest.Chinese(t).Text(settle.Words.Recommendation[1]), "如果不可以，就在系统提示词中把身份核实设为智能体的第一步"))
	require.NotContains(t, strings.Join(settle.Recommendation, " "), "refuse to run", "a tool layer refusing every look-up would refuse the catalogue")
	require.NotContains(t, settle.ExpectedImpact, "no account is read or changed")
	require.Equal(t, "说清楚无需账户的问题能否在核实身份之前回答", localetest.Chinese(t).Text(settle.Words.Title))
	require.Contains(t, write(order[0]).Recommendation[0], "Make identity verification the agent's first step")
}

// TestThingsWentWrongWhereAFindingSaysSo: where a conversation's only problem came
// before its first change (a catalogue look-up before the identity check, then an order
// changed with the user's yes), things first went wrong where that problem is, not at
// the change; a problem that the change is part of still points at the change.
func TestThingsWentWrongWhereAFindingSaysSo(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	for _, words := range [][4]string{
		{"How many lamps do you sell?", "We sell 3 lamps.", "Cancel my order #W1, please. I am jo@example.com.", "Cancel order #W1. Shall I go ahead?"},
		{"你们卖几种台灯？", "我们有 3 种台灯。", "请取消我的订单 #W1，我的邮箱是 jo@example.com。", "要取消订单 #W1 吗？"},
	} {
		d := diagnose(t, a, sys(shopPolicy), u(words[0]),
			toolCall("c1", "list_products", `{}`), res("c1", `{"lamps": 3}`), as(words[1]), u(words[2]),
			toolCall("c2", "find_user_id_by_email", `{"email": "jo@example.com"}`), res("c2", `"jo_1"`),
			as(words[3]), u("Yes"),
			toolCall("c3", "cancel_pending_order", `{"order_id": "#W1"}`), res("c3", `{"order_id": "#W1", "status": "cancelled"}`),
			as("Done."), u("Thanks"))
		require.Len(t, only(d, "policy_violation"), 1, words[0])
		require.Equal(t, 2, d.FailedTurn, "%s: the question answered before the check, not the change at turn 11", words[0])
	}
}
