// Package agentrecipe holds the tests of the agent recipes in agents/: each
// adapter's command line checked against its agent's own argument parser
// (OmegaConf for aideml and ML-Master, Typer for R&D-Agent, from Debian's
// python3-omegaconf and python3-typer), secrets kept out of dry runs, the
// copies of the shared adapter library in step, and the stand-in agent run
// end to end through its adapter against a fake OpenAI-compatible server
// and rexmle's validation endpoint on loopback, including SIGTERM and the
// deadline.
package agentrecipe
