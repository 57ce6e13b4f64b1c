"""The Voila launcher: a page gets a pre-heated kernel only once its notebook has rendered, and
a pooled kernel whose render fails or never finishes is replaced.

The browser tests show the effect (ten tabs opened one after another all load); these tests
pin the rule itself on a fake pool, without a server.
"""

import asyncio
import logging

import pytest

from qra_widgets import serve
from qra_widgets.serve import _head_of_pool_rendered, finished_kernels_only, voila_command


def pooled_kernel(render, kernel_id: str) -> asyncio.Future:
    """A pool item as Voila keeps it: a future of {task, kernel_id}, the task rendering the notebook."""
    item = asyncio.get_running_loop().create_future()
    item.set_result({"task": asyncio.ensure_future(render), "kernel_id": kernel_id})
    return item


class FakeManager:
    """The parts of Voila's pooled kernel manager that the rule uses."""

    def __init__(self, *renders):
        self.log = logging.getLogger("test-serve")
        self.shut_down, self.refills = [], 0
        self.next_renders = list(renders[1:])
        self._pools = {"app.ipynb": [pooled_kernel(renders[0], "k1")]}

    async def shutdown_kernel(self, kernel_id, now=False):
        self.shut_down.append(kernel_id)

    def fill_if_needed(self, delay=None, notebook_name=None):
        self.refills += 1
        if self.next_renders:
            self._pools[notebook_name].append(pooled_kernel(self.next_renders.pop(0), f"k{self.refills + 1}"))

    def head_id(self):
        return self._pools["app.ipynb"][0].result()["kernel_id"]


async def finish_when(event: asyncio.Event):
    await event.wait()


async def never():
    await asyncio.Event().wait()


async def fail():
    raise RuntimeError("the kernel died while rendering")


def test_a_page_waits_until_the_pooled_notebook_has_rendered():
    async def scenario():
        rendered = asyncio.Event()
        manager = FakeManager(finish_when(rendered))
        waiting = asyncio.ensure_future(_head_of_pool_rendered(manager, "app.ipynb"))
        await asyncio.sleep(0.05)
        still_waiting = not waiting.done()
        rendered.set()
        await asyncio.wait_for(waiting, 1)
        return still_waiting, manager.head_id(), manager.shut_down

    assert asyncio.run(scenario()) == (True, "k1", [])


def test_if_another_page_takes_the_kernel_the_next_rendered_one_is_awaited():
    async def scenario():
        first, second = asyncio.Event(), asyncio.Event()
        manager = FakeManager(finish_when(first))
        pool = manager._pools["app.ipynb"]
        waiting = asyncio.ensure_future(_head_of_pool_rendered(manager, "app.ipynb"))
        await asyncio.sleep(0.05)
        pool.pop(0)  # another page took k1 meanwhile...
        first.set()
        await asyncio.sleep(0.2)
        empty_pool_waited = not waiting.done()
        pool.append(pooled_kernel(finish_when(second), "k2"))  # ...and Voila refilled the pool
        await asyncio.sleep(0.2)
        unrendered_waited = not waiting.done()
        second.set()
        await asyncio.wait_for(waiting, 1)
        return empty_pool_waited, unrendered_waited, manager.head_id()

    assert asyncio.run(scenario()) == (True, True, "k2")


@pytest.mark.parametrize("broken", [never, fail], ids=["render never finishes", "render fails"])
def test_a_broken_pooled_kernel_is_shut_down_and_replaced(monkeypatch, broken):
    monkeypatch.setattr(serve, "RENDER_TIMEOUT_SECONDS", 0.2)

    async def scenario():
        replacement_rendered = asyncio.Event()
        manager = FakeManager(broken(), finish_when(replacement_rendered))
        waiting = asyncio.ensure_future(_head_of_pool_rendered(manager, "app.ipynb"))
        while not manager.refills:  # the broken kernel is found out (after 0.2 s, or at once)...
            await asyncio.sleep(0.01)
        waited_for_replacement = not waiting.done()  # ...and the page waits for its replacement
        replacement_rendered.set()
        await asyncio.wait_for(waiting, 1)
        return waited_for_replacement, manager.shut_down, manager.refills, manager.head_id()

    assert asyncio.run(scenario()) == (True, ["k1"], 1, "k2")


def test_the_factory_is_wrapped_only_when_kernels_are_preheated():
    calls = []

    class Pooled(FakeManager):
        def __init__(self):
            self.rendered = asyncio.Event()
            super().__init__(finish_when(self.rendered))

        async def get_rendered_notebook(self, notebook_name, **kwargs):
            calls.append((notebook_name, self.rendered.is_set()))
            return "served"

    def voila_factory(base_class, preheat_kernel, default_pool_size, page_config_hook=None):
        return Pooled if preheat_kernel else base_class

    factory = finished_kernels_only(voila_factory)
    assert factory(dict, False, 0) is dict

    async def scenario():
        manager = factory(object, True, 1, page_config_hook=None)()
        serving = asyncio.ensure_future(manager.get_rendered_notebook("app.ipynb"))
        await asyncio.sleep(0.05)
        assert calls == []  # Voila's own hand-out has not run yet
        manager.rendered.set()
        return await asyncio.wait_for(serving, 1)

    assert asyncio.run(scenario()) == "served"
    assert calls == [("app.ipynb", True)]


def test_qra_widgets_app_runs_the_repaired_launcher():
    command = voila_command(8866, no_browser=True)
    assert command[1:3] == ["-m", "qra_widgets.serve"]
    assert "--preheat_kernel=True" in command and "--MappingKernelManager.cull_idle_timeout=600" in command
