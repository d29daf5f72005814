from ffsite.cli import main

main()
