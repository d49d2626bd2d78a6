from upskill_hub.cli.entry import main

main()
