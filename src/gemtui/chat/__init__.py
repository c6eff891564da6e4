"""Chat history, the streaming call, Turn events and compression."""

from gemtui.chat.chat import Chat, StreamChunk, StreamRetry
from gemtui.chat.compression import CompressionResult, compress_history
from gemtui.chat.turn import Turn

__all__ = ["Chat", "CompressionResult", "StreamChunk", "StreamRetry", "Turn", "compress_history"]
