from upskill_hub.cli.main import main

main()
