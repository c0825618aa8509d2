// Package detector learns what failure looks like for one agent from the outcome labels
// its team already has, and scores the agent's other conversations with it: TF-IDF
// features of the user's and the agent's words, the tools called and those that
// returned errors, the categories of the diagnosis' findings and a few counts, weighed
// by an L2-regularised logistic regression.
//
// A detector is only as good as the labels of the agent it was trained on — trained on
// one agent and applied to another it does no better than chance — so a model belongs
// to one agent. Its honest figure is a cross-validation whose folds keep near-duplicate
// conversations (the same scenario retried) on one side, with a bootstrap interval over
// those groups: that is the figure the product states, never the fit on the training
// data.
//
// Everything is deterministic: the same conversations and labels give the same model,
// byte for byte.
package detector
