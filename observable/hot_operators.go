package observable

// The operators of hot: rxgo implements them on its own observables, so each is applied to
// the rxgo observable of the future's outcome (rx). Written out from rxgo.Observable
// (v2.5.0), one per method: a method a later rxgo adds fails the build at Future.Observable.

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/reactivex/rxgo/v2"
)

func (h *hot[T]) All(predicate rxgo.Predicate, opts ...rxgo.Option) rxgo.Single {
	return h.rx().All(predicate, opts...)
}

func (h *hot[T]) AverageFloat32(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageFloat32(opts...)
}

func (h *hot[T]) AverageFloat64(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageFloat64(opts...)
}

func (h *hot[T]) AverageInt(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageInt(opts...)
}

func (h *hot[T]) AverageInt8(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageInt8(opts...)
}

func (h *hot[T]) AverageInt16(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageInt16(opts...)
}

func (h *hot[T]) AverageInt32(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageInt32(opts...)
}

func (h *hot[T]) AverageInt64(opts ...rxgo.Option) rxgo.Single {
	return h.rx().AverageInt64(opts...)
}

func (h *hot[T]) BackOffRetry(backOffCfg backoff.BackOff, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().BackOffRetry(backOffCfg, opts...)
}

func (h *hot[T]) BufferWithCount(count int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().BufferWithCount(count, opts...)
}

func (h *hot[T]) BufferWithTime(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().BufferWithTime(timespan, opts...)
}

func (h *hot[T]) BufferWithTimeOrCount(timespan rxgo.Duration, count int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().BufferWithTimeOrCount(timespan, count, opts...)
}

func (h *hot[T]) Connect(ctx context.Context) (context.Context, rxgo.Disposable) {
	return h.rx().Connect(ctx)
}

func (h *hot[T]) Contains(equal rxgo.Predicate, opts ...rxgo.Option) rxgo.Single {
	return h.rx().Contains(equal, opts...)
}

func (h *hot[T]) Count(opts ...rxgo.Option) rxgo.Single {
	return h.rx().Count(opts...)
}

func (h *hot[T]) Debounce(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Debounce(timespan, opts...)
}

func (h *hot[T]) DefaultIfEmpty(defaultValue any, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().DefaultIfEmpty(defaultValue, opts...)
}

func (h *hot[T]) Distinct(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Distinct(apply, opts...)
}

func (h *hot[T]) DistinctUntilChanged(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().DistinctUntilChanged(apply, opts...)
}

func (h *hot[T]) DoOnCompleted(completedFunc rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return h.rx().DoOnCompleted(completedFunc, opts...)
}

func (h *hot[T]) DoOnError(errFunc rxgo.ErrFunc, opts ...rxgo.Option) rxgo.Disposed {
	return h.rx().DoOnError(errFunc, opts...)
}

func (h *hot[T]) DoOnNext(nextFunc rxgo.NextFunc, opts ...rxgo.Option) rxgo.Disposed {
	return h.rx().DoOnNext(nextFunc, opts...)
}

func (h *hot[T]) ElementAt(index uint, opts ...rxgo.Option) rxgo.Single {
	return h.rx().ElementAt(index, opts...)
}

func (h *hot[T]) Error(opts ...rxgo.Option) error {
	return h.rx().Error(opts...)
}

func (h *hot[T]) Errors(opts ...rxgo.Option) []error {
	return h.rx().Errors(opts...)
}

func (h *hot[T]) Filter(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Filter(apply, opts...)
}

func (h *hot[T]) Find(find rxgo.Predicate, opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().Find(find, opts...)
}

func (h *hot[T]) First(opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().First(opts...)
}

func (h *hot[T]) FirstOrDefault(defaultValue any, opts ...rxgo.Option) rxgo.Single {
	return h.rx().FirstOrDefault(defaultValue, opts...)
}

func (h *hot[T]) FlatMap(apply rxgo.ItemToObservable, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().FlatMap(apply, opts...)
}

func (h *hot[T]) ForEach(nextFunc rxgo.NextFunc, errFunc rxgo.ErrFunc, completedFunc rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return h.rx().ForEach(nextFunc, errFunc, completedFunc, opts...)
}

func (h *hot[T]) GroupBy(length int, distribution func(rxgo.Item) int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().GroupBy(length, distribution, opts...)
}

func (h *hot[T]) GroupByDynamic(distribution func(rxgo.Item) string, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().GroupByDynamic(distribution, opts...)
}

func (h *hot[T]) IgnoreElements(opts ...rxgo.Option) rxgo.Observable {
	return h.rx().IgnoreElements(opts...)
}

func (h *hot[T]) Join(joiner rxgo.Func2, right rxgo.Observable, timeExtractor func(any) time.Time, window rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Join(joiner, right, timeExtractor, window, opts...)
}

func (h *hot[T]) Last(opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().Last(opts...)
}

func (h *hot[T]) LastOrDefault(defaultValue any, opts ...rxgo.Option) rxgo.Single {
	return h.rx().LastOrDefault(defaultValue, opts...)
}

func (h *hot[T]) Map(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Map(apply, opts...)
}

func (h *hot[T]) Marshal(marshaller rxgo.Marshaller, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Marshal(marshaller, opts...)
}

func (h *hot[T]) Max(comparator rxgo.Comparator, opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().Max(comparator, opts...)
}

func (h *hot[T]) Min(comparator rxgo.Comparator, opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().Min(comparator, opts...)
}

func (h *hot[T]) OnErrorResumeNext(resumeSequence rxgo.ErrorToObservable, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().OnErrorResumeNext(resumeSequence, opts...)
}

func (h *hot[T]) OnErrorReturn(resumeFunc rxgo.ErrorFunc, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().OnErrorReturn(resumeFunc, opts...)
}

func (h *hot[T]) OnErrorReturnItem(resume any, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().OnErrorReturnItem(resume, opts...)
}

func (h *hot[T]) Reduce(apply rxgo.Func2, opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().Reduce(apply, opts...)
}

func (h *hot[T]) Repeat(count int64, frequency rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Repeat(count, frequency, opts...)
}

func (h *hot[T]) Retry(count int, shouldRetry func(error) bool, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Retry(count, shouldRetry, opts...)
}

func (h *hot[T]) Run(opts ...rxgo.Option) rxgo.Disposed {
	return h.rx().Run(opts...)
}

func (h *hot[T]) Sample(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Sample(iterable, opts...)
}

func (h *hot[T]) Scan(apply rxgo.Func2, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Scan(apply, opts...)
}

func (h *hot[T]) SequenceEqual(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Single {
	return h.rx().SequenceEqual(iterable, opts...)
}

func (h *hot[T]) Send(output chan<- rxgo.Item, opts ...rxgo.Option) {
	h.rx().Send(output, opts...)
}

func (h *hot[T]) Serialize(from int, identifier func(any) int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Serialize(from, identifier, opts...)
}

func (h *hot[T]) Skip(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Skip(nth, opts...)
}

func (h *hot[T]) SkipLast(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().SkipLast(nth, opts...)
}

func (h *hot[T]) SkipWhile(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().SkipWhile(apply, opts...)
}

func (h *hot[T]) StartWith(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().StartWith(iterable, opts...)
}

func (h *hot[T]) SumFloat32(opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().SumFloat32(opts...)
}

func (h *hot[T]) SumFloat64(opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().SumFloat64(opts...)
}

func (h *hot[T]) SumInt64(opts ...rxgo.Option) rxgo.OptionalSingle {
	return h.rx().SumInt64(opts...)
}

func (h *hot[T]) Take(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Take(nth, opts...)
}

func (h *hot[T]) TakeLast(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().TakeLast(nth, opts...)
}

func (h *hot[T]) TakeUntil(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().TakeUntil(apply, opts...)
}

func (h *hot[T]) TakeWhile(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().TakeWhile(apply, opts...)
}

func (h *hot[T]) TimeInterval(opts ...rxgo.Option) rxgo.Observable {
	return h.rx().TimeInterval(opts...)
}

func (h *hot[T]) Timestamp(opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Timestamp(opts...)
}

func (h *hot[T]) ToMap(keySelector rxgo.Func, opts ...rxgo.Option) rxgo.Single {
	return h.rx().ToMap(keySelector, opts...)
}

func (h *hot[T]) ToMapWithValueSelector(keySelector rxgo.Func, valueSelector rxgo.Func, opts ...rxgo.Option) rxgo.Single {
	return h.rx().ToMapWithValueSelector(keySelector, valueSelector, opts...)
}

func (h *hot[T]) ToSlice(initialCapacity int, opts ...rxgo.Option) ([]any, error) {
	return h.rx().ToSlice(initialCapacity, opts...)
}

func (h *hot[T]) Unmarshal(unmarshaller rxgo.Unmarshaller, factory func() any, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().Unmarshal(unmarshaller, factory, opts...)
}

func (h *hot[T]) WindowWithCount(count int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().WindowWithCount(count, opts...)
}

func (h *hot[T]) WindowWithTime(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().WindowWithTime(timespan, opts...)
}

func (h *hot[T]) WindowWithTimeOrCount(timespan rxgo.Duration, count int, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().WindowWithTimeOrCount(timespan, count, opts...)
}

func (h *hot[T]) ZipFromIterable(iterable rxgo.Iterable, zipper rxgo.Func2, opts ...rxgo.Option) rxgo.Observable {
	return h.rx().ZipFromIterable(iterable, zipper, opts...)
}
