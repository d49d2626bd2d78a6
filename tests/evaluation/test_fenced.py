from upskill_hub.evaluation.fenced import CodeBlock, extract_blocks, language_of


def test_backtick_block_with_language_and_start_line() -> None:
    text = "Intro\n\n```toml\n[general]\nname = 'x'\n```\nafter\n"
    (block,) = extract_blocks(text)
    lang, code, start = block
    assert (lang, code, start) == ("toml", "[general]\nname = 'x'\n", 3)
    assert block.closed


def test_tilde_fence_and_several_blocks_in_order() -> None:
    text = "~~~yaml\na: 1\n~~~\n\n```json\n{}\n```\n"
    assert [(b.lang, b.code) for b in extract_blocks(text)] == [
        ("yaml", "a: 1\n"),
        ("json", "{}\n"),
    ]


def test_info_strings_give_the_first_word_lowercased() -> None:
    assert language_of('toml title="build.toml"') == "toml"
    assert language_of("{.Python .numberLines}") == "python"
    assert language_of("toml:build.toml") == "toml"
    assert language_of("C++") == "c++"
    assert language_of("   ") == ""
    text = '```TOML title="build.toml"\nx = 1\n```\n'
    assert extract_blocks(text)[0].lang == "toml"
    assert extract_blocks(text)[0].info == 'TOML title="build.toml"'


def test_unterminated_fence_runs_to_the_end() -> None:
    (block,) = extract_blocks("text\n```cuda\n__global__ void k() {}\n")
    assert block.lang == "cuda"
    assert block.code == "__global__ void k() {}\n"
    assert not block.closed


def test_closing_fence_must_match_character_and_length() -> None:
    text = "````md\n```toml\nx = 1\n```\n````\n"
    blocks = extract_blocks(text, nested=False)
    assert [b.lang for b in blocks] == ["md"]
    assert blocks[0].code == "```toml\nx = 1\n```\n"
    assert extract_blocks("~~~\n```\nstill inside\n~~~\n")[0].code == "```\nstill inside\n"


def test_blocks_inside_markdown_blocks_are_found_with_their_real_line() -> None:
    text = "Here:\n````markdown\n# Build\n```toml\nx = 1\n```\n````\n"
    blocks = extract_blocks(text)
    assert [(b.lang, b.start_line) for b in blocks] == [("markdown", 2), ("toml", 4)]
    assert text.splitlines()[blocks[1].start_line - 1] == "```toml"


def test_indented_fence_in_a_list_item_is_dedented() -> None:
    text = "1. Write:\n   ```cpp\n   int main() {\n     return 0;\n   }\n   ```\n"
    (block,) = extract_blocks(text)
    assert block.code == "int main() {\n  return 0;\n}\n"


def test_inline_triple_backticks_are_not_a_fence() -> None:
    assert extract_blocks("use ```x``` inline\n``` a`b\nnot code\n") == []


def test_empty_block_and_no_blocks() -> None:
    assert extract_blocks("```\n```\n") == [CodeBlock("", "", 1, "", True)]
    assert extract_blocks("no code here") == []
    assert extract_blocks("") == []
