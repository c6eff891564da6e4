from gemtui.cli import run

run()
