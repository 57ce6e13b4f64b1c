"""The Voila launcher: a pre-heated kernel reaches a page only once its notebook has rendered.

The browser tests show the effect (ten tabs opened one after another all load); these tests
pin the waiting rule itself on a fake pool, without a server.
"""

import asyncio

from qra_widgets.serve import _head_of_pool_rendered, finished_kernels_only, voila_command


def pooled_kernel(render_done: asyncio.Event, kernel_id: str) -> asyncio.Future:
    """A pool item as Voila keeps it: a future of {task, kernel_id}, the task rendering the notebook."""
    item = asyncio.get_running_loop().create_future()
    item.set_result({"task": asyncio.ensure_future(render_done.wait()), "kernel_id": kernel_id})
    return item


def test_a_page_waits_until_the_pooled_notebook_has_rendered():
    async def scenario():
        rendered = asyncio.Event()
        pools = {"app.ipynb": [pooled_kernel(rendered, "k1")]}
        waiting = asyncio.ensure_future(_head_of_pool_rendered(pools, "app.ipynb"))
        await asyncio.sleep(0.05)
        still_waiting = not waiting.done()
        rendered.set()
        await asyncio.wait_for(waiting, 1)
        return still_waiting, pools["app.ipynb"][0].result()["kernel_id"]

    assert asyncio.run(scenario()) == (True, "k1")


def test_if_another_page_takes_the_kernel_the_next_rendered_one_is_awaited():
    async def scenario():
        first, second = asyncio.Event(), asyncio.Event()
        pool = [pooled_kernel(first, "k1")]
        pools = {"app.ipynb": pool}
        waiting = asyncio.ensure_future(_head_of_pool_rendered(pools, "app.ipynb"))
        await asyncio.sleep(0.05)
        pool.pop(0)  # another page took k1 meanwhile...
        first.set()
        await asyncio.sleep(0.2)
        empty_pool_waited = not waiting.done()
        pool.append(pooled_kernel(second, "k2"))  # ...and Voila refilled the pool
        await asyncio.sleep(0.2)
        unrendered_waited = not waiting.done()
        second.set()
        await asyncio.wait_for(waiting, 1)
        return empty_pool_waited, unrendered_waited, pool[0].result()["kernel_id"]

    assert asyncio.run(scenario()) == (True, True, "k2")


def test_the_factory_is_wrapped_only_when_kernels_are_preheated():
    calls = []

    class Pooled:
        def __init__(self):
            self.rendered = asyncio.Event()
            self._pools = {}

        async def get_rendered_notebook(self, notebook_name, **kwargs):
            calls.append((notebook_name, self.rendered.is_set()))
            return "served"

    def voila_factory(base_class, preheat_kernel, default_pool_size, page_config_hook=None):
        return Pooled if preheat_kernel else base_class

    factory = finished_kernels_only(voila_factory)
    assert factory(dict, False, 0) is dict

    async def scenario():
        manager = factory(object, True, 1, page_config_hook=None)()
        manager._pools = {"app.ipynb": [pooled_kernel(manager.rendered, "k1")]}
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
