package offline

import "github.com/checkup-dev/checkup/workers/textmatch"

// markers are the phrase lists the rules look for, English and Chinese side by side.
// They are matched on folded text (case, width and whitespace folded), so each phrase
// is written once in its natural form.
type markers struct {
	confirm      textmatch.PhraseSet // the user explicitly agrees
	assent       textmatch.PhraseSet // the user goes along without saying yes
	negation     textmatch.PhraseSet // ...unless the message opens with one of these
	successClaim textmatch.PhraseSet // the assistant says something was done
	failureAck   textmatch.PhraseSet // the assistant admits a problem
	toolFault    textmatch.PhraseSet // a tool's error is the tool breaking, not a call it turned down: "timeout", "超时"
	unavailable  textmatch.PhraseSet // a tool's error says what was asked for is not to be had: "not enough seats", "无货"
	frustration  textmatch.PhraseSet
	restate      textmatch.PhraseSet // the user has to repeat or correct a request
	giveUp       textmatch.PhraseSet // the user gives up on the request: "never mind", "算了"
	deferring    textmatch.PhraseSet // the user puts it off: "I'll get back to you", "我再考虑"
	keepAsIs     textmatch.PhraseSet // the user decides against the change: "I'll hold off", "保持原样"
	closing      textmatch.PhraseSet // a polite close: thanks, bye, that's all
	closingAsk   textmatch.PhraseSet // "anything else?" — a question that closes, not one left open
	needNothing  textmatch.PhraseSet // the user says they need nothing more: "I'm all set", "没有其他问题了"
	tryAgain     textmatch.PhraseSet // the user asks for another attempt: "try again", "再试一次"
	handoffText  textmatch.PhraseSet // the assistant says it transfers now (not an offer)
	knowledgeGap textmatch.PhraseSet
	decline      textmatch.PhraseSet // the assistant says something cannot be done
	limit        textmatch.PhraseSet // ...or states the rule a request runs into: "must be", 只能
	condition    textmatch.PhraseSet // a clause that opens a case, not a statement: "if", "unless", 如果
}

func newMarkers() markers {
	return markers{
		confirm: textmatch.NewPhraseSet(
			"yes", "yeah", "yep", "yup", "confirm", "confirmed", "go ahead", "proceed", "please do", "sure", "ok", "okay",
			"sounds good", "looks good", "that's correct", "that is correct", "correct", "do it", "agreed", "absolutely",
			"确认", "好的", "是的", "可以", "没问题", "同意", "确定", "对的", "行吧", "好吧", "办吧", "就这样",
		),
		assent: textmatch.NewPhraseSet(
			"works", "perfect", "great", "sounds", "let's", "go with", "continue", "please", "i'd like", "i would like",
			"i want", "fine", "alright", "all right", "that's all", "use the", "行", "可以", "好", "麻烦", "请", "就用",
		),
		negation: textmatch.NewPhraseSet("no", "not", "don't", "do not", "wait", "hold on", "不", "别", "等等", "等一下"),
		successClaim: textmatch.NewPhraseSet(
			"successfully", "has been booked", "has been updated", "has been cancelled", "has been canceled",
			"has been changed", "has been processed", "has been modified", "has been added", "has been refunded",
			"has been issued", "have been updated", "have been processed", "have been added", "have been booked",
			"is confirmed", "is now confirmed", "is complete", "is now complete", "all set", "i've booked", "i have booked",
			"i've updated", "i have updated", "成功", "已为您", "已经为您", "已完成", "办理好了", "已取消", "已退款", "已修改", "已预订",
		),
		failureAck: textmatch.NewPhraseSet(
			"unfortunately", "error", "unable", "couldn't", "could not", "wasn't able", "was not able", "failed",
			"cannot", "can't", "can not", "not possible",
			"not enough", "not sufficient", "isn't sufficient", "issue", "problem", "sorry", "not available", "unavailable", "insufficient", "did not go through",
			"didn't go through", "抱歉", "失败", "无法", "未能", "错误", "不足", "不够", "问题", "没有成功", "不能",
		),
		unavailable: textmatch.NewPhraseSet(
			"not enough seats", "no seats", "no seat", "sold out", "out of stock", "not in stock", "no longer available",
			"not found or available", "unavailable", "fully booked",
			"库存不足", "无货", "缺货", "售罄", "已售完", "没有座位", "座位不足", "已满",
		),
		toolFault: textmatch.NewPhraseSet(
			"timeout", "timed out", "internal error", "internal server error", "server error", "service unavailable",
			"bad gateway", "gateway timeout", "connection refused", "connection reset", "connection error", "network error",
			"exception", "traceback", "stack trace", "rate limit", "too many requests", "unexpected error", "unknown error",
			"econnrefused", "econnreset", "panic",
			"超时", "内部错误", "服务器错误", "服务不可用", "服务异常", "系统异常", "系统错误", "系统繁忙", "网络错误", "网络异常",
			"连接失败", "请求过多", "未知错误",
		),
		frustration: textmatch.NewPhraseSet(
			"this is ridiculous", "ridiculous", "again?!", "useless", "frustrat", "frustrating", "frustrated", "annoying",
			"unacceptable", "waste of time", "wasting my time", "terrible", "going in circles", "not helpful", "what the hell",
			"are you kidding", "seriously?", "fed up", "so disappointed", "very disappointed", "i give up",
			"file a complaint", "make a complaint", "complain", "not satisfied", "unhappy with",
			"太慢了", "没用", "气死", "无语", "垃圾", "烦死", "什么破", "太差", "浪费时间", "失望", "搞什么",
			"投诉", "差评", "不满意", "太不负责",
		),
		restate: textmatch.NewPhraseSet(
			"as i said", "as i mentioned", "like i said", "i already told", "i already said", "i already mentioned",
			"i already gave", "i already provided", "i've already told", "i've already said", "i've already given",
			"i've already provided", "i've already explained", "i have already told", "not what i asked", "that's not what i", "you misunderstood",
			"some confusion", "mix-up", "mixup", "misunderstanding", "i said", "i repeat",
			"我已经说过", "我说过了", "我刚才说", "不是这个意思", "你理解错了", "再说一遍", "我再说一次",
		),
		giveUp: textmatch.NewPhraseSet(
			"never mind", "nevermind", "forget it", "i'll look elsewhere", "i'll try elsewhere", "won't be able to proceed",
			"contact customer service", "i'll try reaching out", "算了", "不用了", "不办了", "我去别家",
		),
		deferring: textmatch.NewPhraseSet(
			"i'll get back to you", "get back to you", "i'll reach out once", "i'll contact you", "i'll come back",
			"think about it", "consider my options", "i'll try to find it", "once i have",
			"reach out soon", "再说吧", "我再考虑", "以后再说", "我再想想", "回头再", "等我找到",
		),
		keepAsIs: textmatch.NewPhraseSet(
			"hold off", "stick with", "as is", "as it is", "keep the current", "keep my current", "decided not to",
			"decide not to", "not make any changes", "not to make any changes",
			"先不改", "不改了", "保持原样", "维持现状", "保持不变", "先不换", "不换了", "先不退", "不退了",
		),
		closing: textmatch.NewPhraseSet(
			"thank", "thanks", "bye", "goodbye", "that's all", "that is all", "all set", "have a great", "have a good",
			"you too", "appreciate", "that's it", "that is it", "that's everything", "nothing else", "done then",
			"that will be all", "that'll be all", "i'm all set", "i'm good", "all good", "we're done", "i'll wait",
			"谢谢", "感谢", "再见", "拜拜", "没有了", "就这些", "没事了", "好了", "行了", "就这样", "没别的了",
		),
		tryAgain: textmatch.NewPhraseSet(
			"try again", "try it again", "retry", "one more time", "give it another try", "another go",
			"再试", "重试", "再来一次", "再提交一次",
		),
		needNothing: textmatch.NewPhraseSet(
			"all set", "that's all i need", "that is all i need", "i'm good now", "i don't need anything else",
			"没有其他问题了", "没别的问题了", "我没事了", "没有别的需要了",
		),
		closingAsk: textmatch.NewPhraseSet(
			"anything else", "any other questions", "any more questions", "any further questions", "further assistance",
			"is that all", "还有其他", "还有什么", "还有别的", "其他问题",
		),
		handoffText: textmatch.NewPhraseSet(
			"i'll transfer you", "i will transfer you", "i'm transferring you", "i am transferring you", "transferring you to",
			"let me transfer you", "i have transferred you", "i've transferred you", "i'll connect you with", "i will connect you with",
			"为您转接", "正在转接", "转接人工", "帮您转人工", "为您转人工",
		),
		knowledgeGap: textmatch.NewPhraseSet(
			"i don't have access to", "i do not have access to", "i don't have information", "i do not have information",
			"i don't have any information", "i'm not sure", "i am not sure", "i don't know", "no information about",
			"我不清楚", "我不知道", "没有相关信息", "无法查询", "查不到",
		),
		limit: textmatch.NewPhraseSet(
			"must be", "has to be", "have to be", "can only", "may only", "only be", "must go", "must only",
			"必须", "只能", "仅限", "只可以", "只支持",
		),
		condition: textmatch.NewPhraseSet(
			"if", "unless", "in case", "should you", "whether", "如果", "假如", "要是", "万一", "若",
		),
		decline: textmatch.NewPhraseSet(
			"unable to", "i can't", "i cannot", "cannot be", "can't be", "can not be", "not able to", "not possible",
			"not allowed", "not permitted", "doesn't allow", "does not allow", "not eligible", "is not eligible", "unfortunately", "i'm afraid", "against our policy",
			"according to our policy", "per our policy", "policy does not", "policy doesn't", "only be", "is not refundable",
			"无法", "不能", "不可以", "不支持", "不符合", "抱歉", "很遗憾", "根据规定", "按照规定",
		),
	}
}
