"""upskill-hub Space: run any Agent Skill against any model and see its lift.

This file only lays out widgets and wires them to :mod:`upskill_hub.space_support`, where every
behaviour lives (and is tested). ``python app.py`` runs it locally; on a Hugging Face Space
(``SPACE_ID`` set) it runs in hosted mode: public base URLs only, the visitor's own keys,
capped runs and one evaluation per visitor at a time.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from upskill_hub.secrets import Redactor
from upskill_hub.space_support import browse, live, tables
from upskill_hub.space_support import form as forms
from upskill_hub.space_support import push_results as results
from upskill_hub.space_support.messages import describe_error, log_failure
from upskill_hub.space_support.settings import (
    SpaceSettings,
    local_token_available,
    sign_in_available,
)
from upskill_hub.space_support.skills import (
    DEFAULT_SKILL,
    bundled_skills,
    find_skills_dir,
    visitor_hub,
)

HERE = Path(__file__).resolve().parent
INTRO = """# Does this skill help my model?
Pick an [Agent Skill](https://agentskills.io) and a model: the skill's test cases run **without**
the skill (baseline) and **with** it (in the prompt, or in agent mode loaded on demand through
Skill and Read tools), and the **lift** is the difference in pass rate, with 95% intervals."""
#: The "Push results" answer in local mode when this machine has no Hugging Face token.
NO_LOCAL_TOKEN = (
    "Sign-in is unavailable locally: set HF_TOKEN or run `hf auth login`, then push again."
)


def _oauth_token(token: gr.OAuthToken | None, settings: SpaceSettings) -> str | None:
    # Locally the sign-in is Gradio's mock (a fake token): use the machine's own login instead.
    return token.token if (token is not None and settings.hosted) else None


def build_demo(settings: SpaceSettings | None = None, skills_dir: Path | None = None) -> gr.Blocks:
    """The app. ``settings`` default to the environment (hosted iff ``SPACE_ID``)."""
    settings = settings or SpaceSettings.from_env()
    skills_dir = skills_dir or find_skills_dir([HERE / "skills", HERE.parent / "skills"])
    bundled = bundled_skills(skills_dir)
    gate = live.VisitorGate(settings.per_visitor)
    providers = forms.providers_for(settings)
    first = providers[0]
    sign_in = sign_in_available(settings)
    key_hint = "used for this run only; never stored or shown"
    if sign_in:
        key_hint += " (Inference Providers: or sign in above)"

    def on_provider(provider: str) -> tuple[Any, Any, Any]:
        return (
            gr.update(
                value=forms.DEFAULT_MODELS[provider], placeholder=forms.MODEL_HINTS[provider]
            ),
            gr.update(visible=provider == forms.OPENAI),
            gr.update(visible=provider != forms.EMBEDDED),
        )

    def run_evaluation(
        skill: str,
        provider: str,
        model: str,
        base_url: str,
        api_key: str,
        runs: float,
        temperature: float,
        mode: str,
        profile: gr.OAuthProfile | None,
        token: gr.OAuthToken | None,
        request: gr.Request,
        progress: gr.Progress = gr.Progress(),
    ) -> Iterator[tuple[Any, ...]]:
        form = forms.EvalForm(skill, provider, model, base_url, api_key, runs, temperature, mode)
        client = request.client.host if request.client else None
        visitor = live.visitor_id(
            profile.username if profile else None,
            dict(request.headers),
            client,
            request.session_hash or "anonymous",
        )
        views = live.stream_eval(
            form,
            settings,
            gate=gate,
            visitor=visitor,
            bundled=bundled,
            oauth_token=_oauth_token(token, settings),
        )
        for view in views:
            if view.total:
                progress((view.done, view.total), desc="samples", unit="samples")
            status = f"⚠ {view.error}" if view.error else view.status
            yield (
                tables.progress_bar_html(view.done, view.total, finished=view.finished),
                status,
                view.summary,
                str(view.chart) if view.chart else None,
                str(view.frontier_chart) if view.frontier_chart else None,
                view.cases_html,
                str(view.run_dir) if view.run_dir else None,
                gr.update(interactive=view.run_dir is not None),
            )

    def push_results(
        run_dir: str | None,
        profile: gr.OAuthProfile | None,
        token: gr.OAuthToken | None,
    ) -> str:
        oauth = _oauth_token(token, settings)
        redactor = Redactor([oauth])
        if not run_dir:
            return "Run an evaluation first."
        if settings.hosted and (profile is None or oauth is None):
            return "Sign in with Hugging Face to push results to your namespace."
        if not settings.hosted and not local_token_available():
            return NO_LOCAL_TOKEN
        try:
            pushed = results.push_run(
                Path(run_dir),
                skill_name=results.skill_name_of(Path(run_dir)),
                namespace=profile.username if settings.hosted and profile else None,
                token=oauth,
                redactor=redactor,
            )
        except Exception as exc:
            log_failure("pushing results", exc, redactor)
            return f"⚠ {describe_error(exc, redactor)}"
        return f"✓ Results pushed to [{pushed.repo_id}]({pushed.url})"

    def search_skills(
        query: str, model: str = "", token: gr.OAuthToken | None = None
    ) -> tuple[Any, str]:
        oauth = _oauth_token(token, settings)
        try:
            rows = browse.search_rows(query, hub=visitor_hub(settings.hosted, oauth), model=model)
        except Exception as exc:
            log_failure("searching skills", exc, Redactor([oauth]))
            return [], f"⚠ {describe_error(exc, Redactor([oauth]))}"
        return rows, (f"{len(rows)} skill repo(s) found." if rows else "No skills found.")

    def show_skill(repo_id: str, token: gr.OAuthToken | None = None) -> str:
        if not (repo_id or "").strip():
            return "Enter a repo id (namespace/name), or pick a search result."
        oauth = _oauth_token(token, settings)
        try:
            hub = visitor_hub(settings.hosted, oauth)
            return browse.skill_page(repo_id.strip(), hub=hub).markdown
        except Exception as exc:
            log_failure("showing a skill", exc, Redactor([oauth]))
            return f"⚠ {describe_error(exc, Redactor([oauth]))}"

    def pick_result(table: Any, event: gr.SelectData) -> str:
        return browse.selected_repo(table, event.index)

    with gr.Blocks(title="upskill-hub: does this skill help my model?") as demo:
        gr.Markdown(INTRO)
        if sign_in:
            gr.LoginButton()
        with gr.Tab("Evaluate"):
            with gr.Row(equal_height=False):
                with gr.Column(scale=1, min_width=300):
                    skill = gr.Dropdown(
                        choices=list(bundled),
                        value=DEFAULT_SKILL if DEFAULT_SKILL in bundled else None,
                        allow_custom_value=True,
                        label="Skill",
                        info="A bundled skill, or any Hub repo id: namespace/name[@revision]",
                    )
                    provider = gr.Radio(list(providers), value=first, label="Provider")
                    model = gr.Textbox(
                        value=forms.DEFAULT_MODELS[first],
                        placeholder=forms.MODEL_HINTS[first],
                        label="Model",
                    )
                    base_url = gr.Textbox(
                        label="Base URL",
                        placeholder="https://api.example.com/v1 (empty: OpenAI's own API)",
                        visible=first == forms.OPENAI,
                    )
                    api_key = gr.Textbox(
                        label="API key",
                        type="password",
                        placeholder=key_hint,
                    )
                    with gr.Row():
                        runs = gr.Slider(1, settings.max_runs, value=1, step=1, label="Runs")
                        temperature = gr.Slider(0, 2, value=0, step=0.1, label="Temperature")
                    mode = gr.Radio(
                        list(forms.MODES),
                        value=forms.INLINE,
                        label="Mode",
                        info="inline: SKILL.md in the prompt. agent: the model sees the skill's "
                        "name and description and loads it and its files with tools.",
                    )
                    run_button = gr.Button("Run evaluation", variant="primary")
                with gr.Column(scale=2, min_width=300):
                    bar = gr.HTML("")
                    status = gr.Markdown("Choose a skill and a model, then **Run evaluation**.")
                    summary = gr.Dataframe(
                        headers=tables.SUMMARY_HEADERS,
                        value=[],
                        label="Summary",
                        interactive=False,
                        wrap=True,
                        column_widths=tables.SUMMARY_WIDTHS,
                        elem_id="upskill-summary",
                    )
                    with gr.Row():
                        chart = gr.Image(
                            label="Lift", type="filepath", interactive=False, height=280
                        )
                        frontier = gr.Image(
                            label="Pass rate vs cost per passed case (priced models)",
                            type="filepath",
                            interactive=False,
                            height=280,
                        )
                    with gr.Row():
                        push_button = gr.Button("Push results to the Hub", interactive=False)
                    push_status = gr.Markdown()
            gr.Markdown("### Per case: baseline and with skill, side by side")
            cases = gr.HTML("<p>No finished cases yet.</p>")
            run_state = gr.State(None)
            provider.change(on_provider, provider, [model, base_url, api_key], api_name=False)
            run_button.click(
                run_evaluation,
                [skill, provider, model, base_url, api_key, runs, temperature, mode],
                [bar, status, summary, chart, frontier, cases, run_state, push_button],
                api_name="evaluate",
                concurrency_limit=settings.queue_concurrency,
                concurrency_id="evaluate",
                show_progress_on=[chart],
            )
            push_button.click(push_results, [run_state], [push_status], api_name="push_results")
        with gr.Tab("Browse skills"):
            with gr.Row():
                query = gr.Textbox(label="Search skills", placeholder="e.g. cuda, pdf, review")
                rank_model = gr.Textbox(
                    label="Rank by measured lift on model",
                    placeholder="e.g. openai:gpt-4.1-mini (empty: the Hub's order)",
                )
                search_button = gr.Button("Search")
            found = gr.Markdown()
            hits = gr.Dataframe(
                headers=browse.SEARCH_HEADERS, value=[], label="Skills", interactive=False
            )
            with gr.Row():
                repo = gr.Textbox(label="Repo id", placeholder="namespace/name[@revision]")
                show_button = gr.Button("Show skill")
            page = gr.Markdown(elem_id="upskill-skill-page")
            search_inputs = [query, rank_model]
            search_button.click(
                search_skills, search_inputs, [hits, found], api_name="search_skills"
            )
            query.submit(search_skills, search_inputs, [hits, found], api_name=False)
            rank_model.submit(search_skills, search_inputs, [hits, found], api_name=False)
            hits.select(pick_result, hits, repo, api_name=False)
            show_button.click(show_skill, repo, page, api_name="skill_page")
    demo.queue(default_concurrency_limit=settings.queue_concurrency, max_size=64)
    return demo


demo = build_demo()

if __name__ == "__main__":
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
